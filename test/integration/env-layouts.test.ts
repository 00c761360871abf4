// Layouts and version sources on real builds, since each decides where the package is imported
// from, which only a run shows: each fixture project of test/fixtures/env-projects/ (one
// layout or version source each, two of them snapshots of real projects) runs its suite through the
// real CLI's `run-test`, and the counts are the suite's. Every suite holds a test asserting that
// `<project>.__file__` is under /work (never Debian's dist-packages), and the VCS ones one asserting
// the version read on the host from the tag this file gives the repository.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { gitInOwnRepo } from '../../runtime/host/safe-git.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';
import { removeProjectImages } from '../helpers/env-repos.js';

// pip pointed at an index that never answers: Debian's packages serve, whatever this machine reaches.
const NO_PIP = {
  PIP_INDEX_URL: 'http://127.0.0.1:9/simple/',
  PIP_RETRIES: '0',
  PIP_EXTRA_INDEX_URL: '',
  PIP_FIND_LINKS: '',
  CI: 'true',
};
const engine = new DockerEngine();
const scratch = mkdtempSync(join(tmpdir(), 'piper-layouts-'));
const repos: string[] = [];
const identity = { name: 'piper-agent', email: 'piper-agent@localhost' };
/** One environment build and a suite: 15-30 s on an idle machine, over 100 s on a loaded one. */
const BUILD_MS = 300_000;

/** The fixture as a git repository; `tag` tags its commit, `after` commits that many more. */
function repoOf(fixture: string, tag?: string, after = 0): string {
  const src = join(packageRoot(), 'test', 'fixtures', 'env-projects', fixture);
  const repo = copyAsGitRepo(src, join(scratch, fixture), 'fixture');
  if (tag) gitInOwnRepo(repo, ['tag', tag], identity);
  for (let i = 0; i < after; i++) {
    writeFileSync(join(repo, 'NOTES.txt'), `note ${i}\n`);
    gitInOwnRepo(repo, ['add', 'NOTES.txt'], identity);
    gitInOwnRepo(repo, ['commit', '-q', '-m', `note ${i}`], identity);
  }
  repos.push(repo);
  return repo;
}

async function runTests(repo: string, target: string) {
  const r = await runCli(['run-test', target, '--repo', repo, '--json'], { env: NO_PIP });
  expect(r.stderr).toContain('building the environment');
  const result = JSON.parse(r.stdout || '{}') as { counts?: { passed: number; failed: number } };
  return { ...r, counts: result.counts };
}

afterAll(async () => {
  for (const repo of repos) await removeProjectImages(engine, repo);
  rmSync(scratch, { recursive: true, force: true });
});

describe('layouts: the project is imported from the workspace', () => {
  it.each([
    // [fixture, passed]: src with flit; setup.cfg only, package_dir = lib; setup.py's
    // package_dir={"": "lib"} (read as text) with a namespace package and a single module.
    ['flit-src', 3],
    ['setup-cfg-only', 3],
    ['lib-setup-py', 4],
  ])(
    '%s runs its whole suite (%i passed)',
    async (fixture, passed) => {
      const r = await runTests(repoOf(fixture), 'tests/');
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.counts).toMatchObject({ passed, failed: 0 });
    },
    BUILD_MS,
  );
});

describe('versions from git, read on the host: the sandbox has no .git', () => {
  it(
    'setuptools-scm: one commit after v1.4.0 is 1.4.1.dev1+g<hash>, and the plan says why',
    async () => {
      const repo = repoOf('scm-setuptools', 'v1.4.0', 1);
      const r = await runTests(repo, 'tests/');
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.counts).toMatchObject({ passed: 2, failed: 0 });
      expect(r.stderr).toMatch(/piper: version 1\.4\.1\.dev1\+g[0-9a-f]{7} for setuptools-scm/);
      const plan = await runCli(['env', 'plan', '--repo', repo]);
      expect(plan.stdout).toContain('version from git (setuptools-scm');
    },
    BUILD_MS,
  );

  it(
    'hatch-vcs, a single module: the exact tag 0.7.2 is the version',
    async () => {
      const r = await runTests(repoOf('hatch-vcs', '0.7.2'), 'tests/');
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.counts).toMatchObject({ passed: 2, failed: 0 });
    },
    BUILD_MS,
  );
});

describe('real projects (snapshots, see test/fixtures/env-projects/README.md)', () => {
  it(
    'iniconfig: its own code, not Debian python3-iniconfig that pytest imports; hatch-vcs',
    async () => {
      const r = await runTests(repoOf('real-iniconfig', 'v2.1.0', 1), 'testing/');
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      // Upstream's 42 tests and the fixture's two (__file__ under /work/src, the dev version).
      expect(r.counts).toMatchObject({ passed: 44, failed: 0 });
    },
    BUILD_MS,
  );

  it(
    'cachetools: a setuptools src layout, its whole suite',
    async () => {
      const r = await runTests(repoOf('real-cachetools'), 'tests/');
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      // Its tox.ini's setenv THREADING_TESTS = 1 (tox runs its test command) turns on the two
      // threading tests it would skip otherwise.
      expect(r.counts).toMatchObject({ passed: 280, failed: 0, skipped: 0 });
    },
    BUILD_MS,
  );
});
