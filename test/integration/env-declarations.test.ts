// Every kind of dependency declaration at once, on real builds with nothing done by hand (a
// declaration read wrong shows only when the suite runs): the real CLI's `run-test`
// (no TARGET: the project's own test command) runs each fixture's suite, and `env plan` explains
// every decision. One fixture holds every declaration kind that does not interfere with another
// (a tooling-only dev group at unavailable versions, a pip-compile'd pin set, a lower bound above
// every source, an unavailable optional test dependency, Poetry and PDM dev sections, Hatch envs,
// tox-only and nox-only deps, a conftest importing an undeclared package, `--cov` in addopts,
// `asyncio_mode` with `--strict-config`, a uv.lock), and its suite asserts the pytest plugin
// rule from inside: the plugins it names ran their hooks, Debian's anyio (pulled in by httpx,
// never named) did not. The second is `--strict-config` with an ini key whose plugin no source
// has: the suite runs, and the run and `env plan` say why --strict-config was dropped.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';

const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'env-projects');
const engine = new DockerEngine();
const repos = envScratch('piper-env-decl-');
afterAll(() => repos.cleanup(engine));
/** One environment build and a suite: 30-60 s on an idle machine, far more on a loaded one. */
const BUILD_MS = 400_000;

interface RunTestJson {
  passed: boolean;
  target: string;
  from?: string;
  output: string;
  counts?: { passed: number; failed: number; errors: number; skipped: number };
}

async function runTestDefault(repo: string) {
  const r = await runCli(['run-test', '--repo', repo, '--json'], { env: NO_PIP });
  expect(r.code, `${r.stdout}\n${r.stderr.slice(-4000)}`).toBe(0);
  return { stderr: r.stderr, result: JSON.parse(r.stdout) as RunTestJson };
}

// Its build installs 33 Debian packages: about 90 s for the file on an idle machine.
describe('every declaration kind in one project', () => {
  const repo = repos.newRepo('dev-declarations', {}, join(FIXTURES, 'dev-declarations'));

  it(
    "run-test runs the project's own command green; best effort relaxes, skips and leaves out, each said",
    async () => {
      const { stderr, result } = await runTestDefault(repo);
      expect(result.from).toBe('tox.ini [testenv] commands');
      // 6 pass; the optional dependency no source has skips its test.
      expect(result.counts).toMatchObject({ passed: 6, failed: 0, errors: 0, skipped: 1 });
      // --cov in addopts: pytest-cov ran and reported.
      expect(result.output).toMatch(/TOTAL\s+\d+/);
      expect(stderr).toMatch(/environment: relaxed: attrs >=99 → [\d.]+ \(debian\)/);
      expect(stderr).toMatch(/environment: relaxed: pytest ==8\.4\.2 → [\d.]+ \(debian\)/);
      expect(stderr).toMatch(/environment: relaxed: python-dateutil ==2\.8\.2 → [\d.]+ \(debian\)/);
      expect(stderr).toContain('environment: missing: piper-absent-optional-dist');
      expect(stderr).toMatch(
        /environment: pytest: plugin autoload off; loaded as the project names them: [^;]*asyncio \(pytest-asyncio\)[^;]*; not loaded, not named by the project: [^\n]*anyio \(anyio\)/,
      );
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      expect(row!.sources).toMatch(/pytest plugins in the image: [^"]*anyio \(anyio\)/);
    },
    BUILD_MS,
  );

  it('env plan explains every decision, and how pytest runs in the last build', async () => {
    const plan = await runCli(['env', 'plan', '--repo', repo]);
    expect(plan.code).toBe(0);
    const lines = [
      /ruff==0\.0\.1\s+skipped: tooling \(lint\): tests do not import it/,
      /pre-commit==99\s+skipped: tooling \(task runner\)/,
      /requirements-test\.txt: 3 pin\(s\) pip-compile marked `# via` another package read as constraints/,
      /hypothesis<7,>=6 .*\[tool\.poetry\.group\.dev\.dependencies\]/,
      /pyyaml>=5 .*\[tool\.pdm\.dev-dependencies\]\.test/,
      /python-dateutil==2\.8\.2 .*\[tool\.hatch\.envs\.hatch-test\]\.extra-dependencies; uv\.lock \(locked\)/,
      /markupsafe .*tox\.ini \[testenv\]\.deps/,
      /typing-extensions .*noxfile\.py:6 session tests/,
      /inferred\s+six .*conftest\.py imports six/,
      /inferred\s+pytest-cov .*addopts --cov=kinds/,
      /inferred\s+pytest-asyncio .*asyncio_mode/,
      /relaxed: pytest ==8\.4\.2/,
      /missing: piper-absent-optional-dist/,
      /pytest: plugin autoload off; .*not loaded, not named by the project: .*anyio \(anyio\)/,
    ];
    for (const line of lines) expect(plan.stdout).toMatch(line);
  });
});

describe('--strict-config with an ini key whose plugin no source has', () => {
  it(
    'the suite runs; the run and env plan say --strict-config was dropped and why',
    async () => {
      const repo = repos.newRepo('strict-missing-plugin', {}, join(FIXTURES, 'strict-missing-plugin'));
      const { stderr, result } = await runTestDefault(repo);
      expect(result.counts).toMatchObject({ passed: 2, failed: 0 });
      const note =
        'pytest: --strict-config dropped from pytest.ini [pytest] addopts: describe_prefixes needs pytest-describe, which no source has (missing); the rest of addopts is kept';
      expect(result.output.split('\n')[0]).toBe(note);
      expect(stderr).toContain('environment: missing: pytest-describe');
      const plan = await runCli(['env', 'plan', '--repo', repo]);
      expect(plan.stdout).toContain(note);
    },
    BUILD_MS,
  );
});
