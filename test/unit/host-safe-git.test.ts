// git on a hostile repository: a .git/config whose core.fsmonitor is a command
// and whose core.worktree points elsewhere. Plain git runs the command (reproduced first); every
// git call piper makes (file listings for the index and the snapshot, HEAD, the root) does not,
// and lists the repository's own files.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPythonFiles } from '../../primitives/index/repo-files.js';
import { copyAsGitRepo, gitHead, repoRoot } from '../../runtime/host/git.js';
import { gitEnv, gitRepoAt } from '../../runtime/host/safe-git.js';
import { packageRoot } from '../../runtime/package-root.js';
import { snapshotFiles } from '../../runtime/workspace/snapshot.js';

let work: string;
let repo: string;
let marker: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'piper-host-git-'));
  repo = copyAsGitRepo(join(packageRoot(), 'test', 'fixtures', 'sample-repo'), join(work, 'repo'), 'sample');
  marker = join(work, 'MARKER');
  const hook = join(work, 'fsmonitor.sh');
  writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\necho\n`);
  chmodSync(hook, 0o755);
  const elsewhere = join(work, 'elsewhere');
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, 'planted.py'), 'PLANTED = 1\n');
  execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', hook]);
  execFileSync('git', ['-C', repo, 'config', 'core.worktree', elsewhere]);
  execFileSync('git', ['-C', repo, 'config', 'core.pager', `sh -c 'touch ${marker}'`]);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('git on a repository with a hostile .git/config', () => {
  it('plain git runs its fsmonitor command (the attack this guards against)', () => {
    execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repo,
      stdio: 'ignore',
    });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  it("piper's listings, HEAD and root never run it and stay in the repository", async () => {
    const indexed = listPythonFiles(repo);
    expect(indexed.mode).toBe('git');
    expect(indexed.paths).toContain('textstats/words.py');
    expect(indexed.paths).not.toContain('planted.py');
    const packed = snapshotFiles(repo);
    expect(packed).toContain('tests/test_words.py');
    expect(packed).not.toContain('planted.py');
    expect(await gitHead(repo)).toMatch(/^[0-9a-f]{40}$/);
    expect(repoRoot(join(repo, 'textstats'))).toBe(repo);
    expect(existsSync(marker)).toBe(false);
  });

  it("git's environment has nothing of the caller's GIT_* and no system or global config", async () => {
    process.env.GIT_DIR = join(work, 'elsewhere');
    try {
      const env = gitEnv();
      expect(env.GIT_DIR).toBeUndefined();
      expect(env).toMatchObject({ GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' });
      expect(await gitHead(repo)).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      delete process.env.GIT_DIR;
    }
  });

  it('a .git file (gitdir: anywhere) is not a repository: listings walk the tree', async () => {
    const dir = join(work, 'linked');
    mkdirSync(join(dir, 'pkg'), { recursive: true });
    writeFileSync(join(dir, '.git'), `gitdir: ${join(repo, '.git')}\n`);
    writeFileSync(join(dir, 'pkg', 'mod.py'), 'X = 1\n');
    expect(gitRepoAt(dir)).toBeNull();
    expect(await gitHead(dir)).toBeUndefined();
    expect(listPythonFiles(dir)).toEqual({ paths: ['pkg/mod.py'], mode: 'walk' });
    expect(existsSync(marker)).toBe(false);
  });
});
