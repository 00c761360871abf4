// Lost updates, the parts without an engine: the repository's run lock (one live
// run, taken over only from a dead owner, released on exit) and edit_entity's compare-and-swap.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editEntity } from '../../primitives/tools/edit-entity/effect.js';
import { atomicWrite, FileChangedError, sha256 } from '../../primitives/fs/atomic-write.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { readRepoLock, RepoBusyError, RepoLock, repoLockPath } from '../../runtime/host/repo-lock.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { createRun } from '../../runtime/ledger/runs.js';

const tempRepo = () => mkdtempSync(join(tmpdir(), 'piper-lock-'));

/** A pid that is certainly dead: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

function plantLock(repo: string, holder: Record<string, unknown>): void {
  mkdirSync(join(repo, '.piper'), { recursive: true });
  writeFileSync(repoLockPath(repo), JSON.stringify(holder));
}

describe('the run lock', () => {
  it('one holder at a time; the second is refused with the live run id; release frees it', () => {
    const repo = tempRepo();
    const first = RepoLock.acquire(repo, { command: 'fix' });
    first.setRunId('r-first');
    expect(readRepoLock(repo)).toMatchObject({ pid: process.pid, host: hostname(), run_id: 'r-first' });
    let refused: unknown;
    try {
      RepoLock.acquire(repo, { command: 'undo', runId: 'r-other' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RepoBusyError);
    expect((refused as Error).message).toContain('run r-first');
    expect((refused as RepoBusyError).holder.run_id).toBe('r-first');
    first.release();
    expect(existsSync(repoLockPath(repo))).toBe(false);
    const second = RepoLock.acquire(repo, { command: 'undo', runId: 'r-other' });
    expect(readRepoLock(repo)?.run_id).toBe('r-other');
    second.release();
    // No temp or stale files are left beside it: only the .gitignore written with `.piper/`.
    expect(readdirSync(join(repo, '.piper'))).toEqual(['.gitignore']);
  });
  it('takes over a lock whose pid is gone, or whose pid is alive but started at another time', () => {
    const repo = tempRepo();
    plantLock(repo, { host: hostname(), pid: deadPid(), started: '1', run_id: 'r-dead', nonce: 'n1' });
    const lock = RepoLock.acquire(repo, { command: 'fix', runId: 'r-new' });
    expect(readRepoLock(repo)).toMatchObject({ run_id: 'r-new', pid: process.pid });
    lock.release();
    // Our own pid, but a start time that is not ours: a recycled pid, so a dead owner.
    plantLock(repo, { host: hostname(), pid: process.pid, started: '1', run_id: 'r-recycled', nonce: 'n2' });
    RepoLock.acquire(repo, { command: 'fix' }).release();
    // Garbage is no owner either.
    writeFileSync(repoLockPath(repo), 'not json');
    RepoLock.acquire(repo, { command: 'fix' }).release();
    expect(readdirSync(join(repo, '.piper'))).toEqual([]);
  });
  it('an owner on another host cannot be judged from here: refused, never taken over', () => {
    const repo = tempRepo();
    plantLock(repo, { host: 'elsewhere', pid: 1, started: '', run_id: 'r-far', nonce: 'n' });
    expect(() => RepoLock.acquire(repo, { command: 'fix' })).toThrow(/run r-far/);
  });
  it('release leaves a lock that is not ours alone', () => {
    const repo = tempRepo();
    const lock = RepoLock.acquire(repo, { command: 'fix' });
    plantLock(repo, { host: hostname(), pid: process.pid, started: '', run_id: 'r-x', nonce: 'other' });
    lock.release();
    expect(readRepoLock(repo)?.run_id).toBe('r-x');
  });
  // Release on SIGINT/SIGTERM (process.exit in core/session.ts) is tested with the real CLI:
  // test/integration/host-injection.test.ts.
});

describe('compare-and-swap', () => {
  const gate = new LintGate({ python: 'python3' }); // the host's python3: unit tests run without the engine
  afterAll(() => gate.close());

  it('atomicWrite with expectSha256 refuses a file that changed, and keeps the other content', async () => {
    const dir = tempRepo();
    const path = join(dir, 'f.txt');
    writeFileSync(path, 'read');
    const error = await atomicWrite(path, Buffer.from('mine'), {
      expectSha256: sha256('read'),
      beforeSwap: () => writeFileSync(path, 'theirs'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileChangedError);
    expect(readFileSync(path, 'utf8')).toBe('theirs');
    expect(readdirSync(dir)).toEqual(['f.txt']);
    await atomicWrite(path, Buffer.from('mine'), { expectSha256: sha256('theirs') });
    expect(readFileSync(path, 'utf8')).toBe('mine');
  });
  it('edit_entity: a concurrent writer between read and write → precise rejection, nothing recorded', async () => {
    const root = tempRepo();
    cpSync(join(import.meta.dirname, '..', 'fixtures', 'edit'), root, { recursive: true });
    const ledger = Ledger.open(join(tempRepo(), 'ledger.db'));
    const index = await CodeIndex.open(root, ledger);
    const runId = createRun(ledger, { kind: 'fix', repo: root, owner: 'test:1:1' });
    const file = join(root, 'src/calc/ops.py');
    const theirs = readFileSync(file, 'utf8').replace('"""Return a + b."""', '"""Sum of a and b."""');
    const result = await editEntity(
      { repoRoot: root, index, ledger, runId, lint: gate, beforeSwap: () => writeFileSync(file, theirs) },
      { selector: 'src.calc.ops.Calc.add', search: 'return total', replace: 'return total  # checked' },
    );
    expect(result).toEqual({
      ok: false,
      error: 'precondition failed: src/calc/ops.py changed on disk since it was read',
      data: null,
    });
    expect(readFileSync(file, 'utf8')).toBe(theirs);
    expect(editsForRun(ledger, runId)).toEqual([]);
    // Read again, the same edit goes through on top of the other writer's content.
    const again = await editEntity(
      { repoRoot: root, index, ledger, runId, lint: gate },
      { selector: 'src.calc.ops.Calc.add', search: 'return total', replace: 'return total  # checked' },
    );
    expect(again.ok).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('Sum of a and b.');
    ledger.close();
  }, 60_000);
});
