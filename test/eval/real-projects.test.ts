// Issues 20 and 21 on real code: the newest commit of each of the four real projects whose bundles
// the real task set holds (eval/tasks/real/repos), run as a new user would run it, `piper-agent
// run-test` with no target: the project's own CI test command, found and translated (cachetools:
// its workflow runs tox, tox runs `py.test --basetemp={envtmpdir} --cov=…`; sqlparse: `uv run
// --group dev pytest tests/`), its environment built from what it declares. Every suite must pass
// with the counts it has at that commit. Minutes of environment builds: `make test-eval`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP } from '../helpers/env-repos.js';

const REPOS = join(packageRoot(), 'eval', 'tasks', 'real', 'repos');
const scratch = mkdtempSync(join(tmpdir(), 'piper-real-projects-'));

const PROJECTS = [
  { name: 'cachetools', from: /^\.github\/workflows\/ci\.yml job main step 4$/, passed: 279 },
  { name: 'iniconfig', from: /^pyproject\.toml \[tool\.pytest\.ini_options\] testpaths$/, passed: 42 },
  { name: 'itsdangerous', from: /^pyproject\.toml \[tool\.pytest\.ini_options\] testpaths$/, passed: 297 },
  { name: 'sqlparse', from: /^\.github\/workflows\/python-app\.yml job test step/, passed: 506 },
];

describe("run-test with each real project's own test command (real environments, real pytest)", () => {
  for (const project of PROJECTS) {
    it(`${project.name}: the suite passes, ${project.passed} tests`, async () => {
      const repo = join(scratch, project.name);
      execFileSync('git', ['clone', '-q', join(REPOS, `${project.name}.bundle`), repo]);
      const r = await runCli(['run-test', '--repo', repo, '--json'], { env: NO_PIP });
      expect(r.stdout.trim(), `no result: ${r.stderr.slice(-3000)}`).not.toBe('');
      const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
        passed: boolean;
        from: string;
        counts: { passed: number; failed: number; errors: number };
      };
      expect(result.from).toMatch(project.from);
      expect(result.counts, r.stderr.slice(-3000)).toMatchObject({
        passed: project.passed,
        failed: 0,
        errors: 0,
      });
      expect(result.passed).toBe(true);
      expect(r.code).toBe(0);
    });
  }
});
