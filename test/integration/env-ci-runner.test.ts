// What a project's suite relies on in its CI, so that it runs here as it runs there, through the
// real CLI and the real engine: execute sees a copy of the project
// in its environment (and still no network); the sandbox image has a CI runner's tools (a pager
// suite, a suite that runs git); `run-test` with no TARGET runs the project's own test command (a
// Makefile target, a unittest-only suite, a CI workflow step whose env the tests need). Each
// asserts the suite's counts. Only the first project has requirements (one environment build);
// the others use the bare sandbox image.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';
import { getCall, getExecution } from '../../runtime/ledger/calls.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

// pip pointed at an index that never answers: Debian's packages serve, whatever this machine reaches.
const NO_PIP = {
  PIP_INDEX_URL: 'http://127.0.0.1:9/simple/',
  PIP_RETRIES: '0',
  PIP_EXTRA_INDEX_URL: '',
  PIP_FIND_LINKS: '',
  CI: 'true',
};
const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'env-projects');
const engine = new DockerEngine();
const scratch = mkdtempSync(join(tmpdir(), 'piper-ci-runner-'));
const repos: string[] = [];

function fixtureRepo(name: string, files: Record<string, string> = {}): string {
  const dest = join(scratch, `${name}-${repos.length}`);
  const src = `${dest}-src`;
  cpSync(join(FIXTURES, name), src, { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(src, path), text);
  const repo = copyAsGitRepo(src, dest, 'fixture');
  repos.push(repo);
  return repo;
}

interface RunTestJson {
  passed: boolean;
  exit_code: number;
  target: string;
  from?: string;
  output: string;
  counts?: { passed: number; failed: number; errors: number; skipped: number };
  call_id: string;
}

async function runTestDefault(repo: string): Promise<RunTestJson> {
  const r = await runCli(['run-test', '--repo', repo, '--json'], { env: NO_PIP });
  expect(r.code, `${r.stdout}\n${r.stderr.slice(-3000)}`).toBe(0);
  return JSON.parse(r.stdout) as RunTestJson;
}

afterAll(async () => {
  for (const repo of repos) {
    for (const image of await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]))
      await engine.removeImage(image.id).catch(() => undefined);
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('execute in a project environment', () => {
  it('imports the project from /work, and reaches nothing on the host', async () => {
    const repo = fixtureRepo('debian-src');
    const server = createServer();
    let connections = 0;
    server.on('connection', (s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const code = [
      'import os, socket, tinycalc',
      'print(tinycalc.__file__)',
      'open("scratch.txt", "w").write("x")',
      'try:',
      `    socket.create_connection(("127.0.0.1", ${port}), timeout=2)`,
      '    print("connected")',
      'except OSError as e:',
      '    print("refused", type(e).__name__)',
    ].join('\n');
    const r = await runCli(['execute', '--repo', repo, '--code', code, '--json'], { env: NO_PIP });
    server.close();
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const receipt = JSON.parse(r.stdout) as {
      stdout: string;
      stderr: string;
      image: string;
      call_id: string;
    };
    expect(receipt.image).toMatch(/^piper-env-/);
    const [file, network] = receipt.stdout.trim().split('\n');
    expect(file, receipt.stderr).toBe('/work/src/tinycalc/__init__.py');
    expect(network).toMatch(/^refused /);
    expect(connections).toBe(0);
    // A copy: what the program wrote stayed in the container.
    expect(() => cpSync(join(repo, 'scratch.txt'), join(scratch, 'x'))).toThrow();
    // Recorded as every call is, with the environment it ran in.
    const ledger = Ledger.open(defaultLedgerPath(repo));
    const exec = getExecution(ledger, receipt.call_id);
    ledger.close();
    expect(exec?.env_key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('runs the program alone with --no-workspace', async () => {
    const repo = fixtureRepo('unittest-only');
    const code =
      'import os\ntry:\n    import clock\nexcept ImportError:\n    print("no project", os.listdir("."))';
    const r = await runCli(['execute', '--repo', repo, '--no-workspace', '--code', code, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { stdout: string }).stdout).toBe('no project []\n');
  });
});

describe("a CI runner's tools in the sandbox image", () => {
  it('runs a suite that pages through less', async () => {
    const result = await runTestDefault(fixtureRepo('ci-pager'));
    expect(result.target).toBe('python -m pytest');
    expect(result.counts, result.output).toEqual({ passed: 3, failed: 0, errors: 0, skipped: 1 });
  });

  it('runs a suite that runs git init and commits as uid 1000; its command is the Makefile test recipe', async () => {
    const result = await runTestDefault(fixtureRepo('ci-git'));
    expect(result.target).toBe('python -m pytest -q tests');
    expect(result.from).toBe('Makefile test target');
    expect(result.counts, result.output).toEqual({ passed: 4, failed: 0, errors: 0, skipped: 0 });
  });
});

describe("the project's own test command", () => {
  it('runs a unittest-only suite with unittest, counted from its summary', async () => {
    const repo = fixtureRepo('unittest-only');
    const result = await runTestDefault(repo);
    expect(result.target).toBe('python -m unittest discover -s tests -t .');
    expect(result.counts, result.output).toEqual({ passed: 3, failed: 0, errors: 0, skipped: 1 });
    expect(result.output).toMatch(/Ran 4 tests in [\d.]+s/);
  });

  it("sets the env of the CI workflow's test step, never its secrets or PYTHONPATH; env plan says so", async () => {
    const repo = fixtureRepo('ci-workflow-env');
    const result = await runTestDefault(repo);
    expect(result.target).toBe('python -m pytest -q tests');
    expect(result.from).toBe('.github/workflows/ci.yml job test step "Run tests"');
    expect(result.counts, result.output).toEqual({ passed: 4, failed: 0, errors: 0, skipped: 0 });
    const plan = await runCli(['env', 'plan', '--repo', repo]);
    expect(plan.stdout).toContain('test command: python -m pytest -q tests');
    expect(plan.stdout).toContain('  from .github/workflows/ci.yml job test step "Run tests"');
    expect(plan.stdout).toContain('  env UNITCONV_MODE=strict');
    expect(plan.stdout).toMatch(/env UNITCONV_TOKEN not set: its value is an expression/);
    expect(plan.stdout).toMatch(/env PYTHONPATH not set: it would change Python's module search path/);
    // The variables are recorded with the call, as its args.
    const ledger = Ledger.open(defaultLedgerPath(repo));
    const call = getCall(ledger, result.call_id);
    ledger.close();
    expect(JSON.parse(call!.args)).toMatchObject({
      env: { UNITCONV_MODE: 'strict', UNITCONV_PRECISION: '3' },
    });
  });

  it('routes pytest, python -m pytest, python3 -m unittest and unittest discover -v alike, each counted', async () => {
    const repo = fixtureRepo('unittest-only');
    for (const target of [
      'pytest tests',
      'python3 -m pytest -q tests',
      'python3 -m unittest discover -s tests -v',
    ]) {
      const r = await runCli(['run-test', target, '--repo', repo, '--json']);
      expect(r.code, `${target}\n${r.stderr.slice(-2000)}`).toBe(0);
      const result = JSON.parse(r.stdout) as RunTestJson;
      expect(result.counts, `${target}\n${result.output}`).toEqual({
        passed: 3,
        failed: 0,
        errors: 0,
        skipped: 1,
      });
    }
  });

  it('is the repro target of a fix without --test, run with the CI step env, and verifies the fix', async () => {
    const source = readFileSync(join(FIXTURES, 'ci-workflow-env', 'unitconv.py'), 'utf8');
    const repo = fixtureRepo('ci-workflow-env', {
      'unitconv.py': source.replace('km * 0.621371,', 'km * 0.62,'),
    });
    const script = join(packageRoot(), 'test', 'fixtures', 'models', 'ci-env-fix.jsonl');
    const r = await runCli(
      [
        'fix',
        '--repo',
        repo,
        '--model',
        `script:${script}`,
        '--non-interactive',
        '--output',
        'json',
        'km_to_miles is off',
      ],
      { env: NO_PIP },
    );
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const result = JSON.parse(r.stdout) as { run_id: string };
    expect(result).toMatchObject({ outcome: 'resolved', verified: true });
    const ledger = Ledger.open(defaultLedgerPath(repo));
    // The fix run's own calls: the regression gate's suite runs are runs of their own.
    const tests = ledger.database
      .prepare("SELECT args FROM calls WHERE tool = 'run_test' AND run_id = ? ORDER BY rowid")
      .all(result.run_id) as Array<{ args: string }>;
    ledger.close();
    expect(tests.map((t) => JSON.parse(t.args))).toEqual([
      expect.objectContaining({
        target: 'python -m pytest -q tests',
        // The CI step's variables, and pytest's plugin rule (autoload off: docs/environments.md).
        env: {
          UNITCONV_PRECISION: '3',
          UNITCONV_MODE: 'strict',
          PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1',
          PYTEST_ADDOPTS: '-p no:cacheprovider',
        },
      }),
    ]);
  });
});
