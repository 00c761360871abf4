// The host side of the boundary through the real CLI: a repository
// whose .git/config runs a command and moves the work tree, a `vendor/` link to a directory
// outside, a FIFO and a submodule in the snapshot, a snapshot over the work-space cap, and a
// ledger whose edit rows name paths outside the repository. Each attack worked before (the first
// test reproduces the git one with plain git; the others by reading the old code paths: git
// listed vendor/*.py and read_entity/snapshot read them by join(root, path), packing opened FIFOs,
// undo resolved `../x` against the root and used the ledger's own repo column).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../primitives/diff/unified-diff.js';
import { sha256 } from '../../primitives/fs/atomic-write.js';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { recordEdit } from '../../runtime/ledger/edits.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { createRun, getRun } from '../../runtime/ledger/runs.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

// The bare sandbox image: these tests are about the host side, not the project environment.
const ENV = { PIPER_ENV: 'base' };
const SECRET = 'OUTSIDE-THE-REPOSITORY-SECRET';
let work: string;
const engine = new DockerEngine();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'piper-host-boundary-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', '-C', repo, ...args], {
    encoding: 'utf8',
  });
}

function runOf(stderr: string): string {
  return /run (r-\S+)/.exec(stderr)?.[1] ?? '';
}

describe('a repository whose .git/config runs commands (item 1)', () => {
  it('index, run-test and fix never run its fsmonitor and keep the index and edits in the repository', async () => {
    const repo = sampleRepo();
    const marker = join(work, 'FSMONITOR-RAN');
    const hook = join(work, 'fsmonitor.sh');
    writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\necho\n`);
    chmodSync(hook, 0o755);
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(join(elsewhere, 'textstats'), { recursive: true });
    writeFileSync(join(elsewhere, 'textstats', 'words.py'), 'def planted():\n    return 1\n');
    git(repo, 'config', 'core.fsmonitor', hook);
    git(repo, 'config', 'core.worktree', elsewhere);
    // The attack, with plain git.
    execFileSync('git', ['ls-files'], { cwd: repo, stdio: 'ignore' });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const index = await runCli(['index', '--repo', repo, '--json'], { env: ENV });
    expect(index.code, index.stderr).toBe(0);
    expect(index.stdout).toContain('textstats');
    const test = await runCli(['run-test', 'tests/test_words.py', '--repo', repo, '--json'], { env: ENV });
    expect(JSON.parse(test.stdout)).toMatchObject({ passed: false, timed_out: false });
    const fix = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'), { env: ENV });
    expect(fix.code, fix.stderr).toBe(0);
    expect(readFileSync(join(repo, 'textstats', 'words.py'), 'utf8')).toContain('return ranked[:n]');
    expect(readFileSync(join(elsewhere, 'textstats', 'words.py'), 'utf8')).not.toContain('ranked');
    expect(existsSync(marker)).toBe(false);
  }, 240_000);
});

describe('links out of the repository and special files (items 6 and 7)', () => {
  let repo: string;
  beforeAll(() => {
    repo = sampleRepo();
    const outside = join(work, 'outside');
    mkdirSync(outside);
    // vendor/ is tracked, then replaced by a link to a directory outside: git still lists vendor/secret.py.
    mkdirSync(join(repo, 'vendor'));
    writeFileSync(join(repo, 'vendor', '__init__.py'), '');
    writeFileSync(join(repo, 'vendor', 'secret.py'), 'def leaked():\n    return "inside"\n');
    writeFileSync(join(repo, 'pipe'), 'a tracked file, replaced by a FIFO below\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'vendor');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${head},sub`);
    mkdirSync(join(repo, 'sub'));
    writeFileSync(join(repo, 'sub', '.git'), 'gitdir: /nonexistent\n');
    rmSync(join(repo, 'vendor'), { recursive: true });
    writeFileSync(join(outside, '__init__.py'), '');
    writeFileSync(join(outside, 'secret.py'), `def leaked():\n    return "${SECRET}"\n`);
    symlinkSync(outside, join(repo, 'vendor'));
    rmSync(join(repo, 'pipe'));
    execFileSync('mkfifo', [join(repo, 'pipe')]);
  });

  it('read_entity does not read a file through the link', async () => {
    const read = await runCli(
      ['tool', 'read_entity', '{"selector": "vendor.secret.leaked", "body": true}', '--repo', repo],
      { env: ENV },
    );
    expect(read.stdout).not.toContain(SECRET);
    expect(read.stdout).toContain('vendor.secret.leaked');
    expect(read.code).not.toBe(0);
  });

  it('run_test packs neither the link target nor the FIFO nor the submodule, says so, and ends', async () => {
    const r = await runCli(['run-test', 'cat vendor/secret.py', '--repo', repo, '--json'], { env: ENV });
    expect(r.code, r.stderr).toBe(4);
    const result = JSON.parse(r.stdout) as { output: string; run_id: string };
    expect(result.output).not.toContain(SECRET);
    expect(result.output).toMatch(/^\[snapshot: skipped 5 entries: .*\]$/m);
    expect(result.output).toContain('pipe (fifo)');
    expect(result.output).toContain('sub (submodule)');
    expect(result.output).toContain('vendor (symlink to outside the repository)');
    expect(result.output).toContain(
      'vendor/secret.py (outside the repository, through a symlinked directory)',
    );
    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      expect(getRun(ledger, result.run_id)).toMatchObject({ outcome: 'failed' });
    } finally {
      ledger.close();
    }
    expect(await engine.listContainers([`piper.run=${result.run_id}`])).toEqual([]);
  });

  it('a snapshot over the work-space cap fails before any container, naming size, cap and setting', async () => {
    writeFileSync(join(repo, 'big.bin'), Buffer.alloc(3 << 20));
    const r = await runCli(['run-test', 'tests/', '--repo', repo], {
      env: { ...ENV, PIPER_RUN_TEST_TMPFS_MAX_MB: '2' },
    });
    rmSync(join(repo, 'big.bin'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the repository snapshot is 3\.\d MiB \(\d+ files\), over run_test's work-space cap of 2 MiB; no container was started/,
    );
    expect(r.stderr).toContain('PIPER_RUN_TEST_TMPFS_MAX_MB=');
    expect(await engine.listContainers([`piper.run=${runOf(r.stderr)}`])).toEqual([]);
  });
});

describe('undo with a tampered ledger (item 7)', () => {
  it('refuses an edit row naming ../ or a run recorded on another directory, and writes nothing', async () => {
    const repo = sampleRepo();
    const victimDir = join(work, 'victim');
    mkdirSync(victimDir);
    const victim = join(victimDir, 'victim.txt');
    const original = "the user's file\n";
    writeFileSync(victim, original);
    // Rows that reverse to attacker-chosen bytes: undo under the old code wrote them to the victim.
    const planted = 'attacker bytes\n';
    const row = (path: string) => ({
      path,
      beforeSha256: sha256(Buffer.from(planted)),
      afterSha256: sha256(Buffer.from(original)),
      diff: unifiedDiff(path, planted, original),
    });
    const ledger = Ledger.open(defaultLedgerPath(repo));
    let climbing: string;
    let elsewhere: string;
    try {
      climbing = createRun(ledger, { kind: 'fix', repo, owner: 'test:1:1' });
      recordEdit(ledger, { runId: climbing, ...row('../../victim/victim.txt') });
      elsewhere = createRun(ledger, { kind: 'fix', repo: victimDir, owner: 'test:1:1' });
      recordEdit(ledger, { runId: elsewhere, ...row('victim.txt') });
    } finally {
      ledger.close();
    }
    const up = await runCli(['undo', climbing, '--repo', repo]);
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('names "../../victim/victim.txt", which is outside the repository');
    const other = await runCli(['undo', elsewhere], { cwd: repo });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`was recorded on ${victimDir}, not on the current repository`);
    expect(readFileSync(victim, 'utf8')).toBe(original);
  });
});
