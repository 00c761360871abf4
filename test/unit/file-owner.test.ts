// Files keep their owner, the parts without an engine: run as root on a
// checkout owned by another uid, an atomic write keeps the file's owner and mode, and `.piper/`,
// the ledger (with its -wal and -shm) and the run lock are created as the checkout owner's.
// Needs root (as in the CI container); skipped otherwise.
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atomicWrite, sha256 } from '../../primitives/fs/atomic-write.js';
import { makeOwnedDirectory, ownerToAdopt } from '../../runtime/host/checkout-owner.js';
import { RepoLock, repoLockPath } from '../../runtime/host/repo-lock.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { createRun } from '../../runtime/ledger/runs.js';

const OTHER = { uid: 1000, gid: 1000 };
const asRoot = process.getuid?.() === 0;

/** A checkout owned by OTHER, as a CI runner's mounted into a root container. */
function foreignCheckout(): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'piper-owner-')), 'repo');
  mkdirSync(repo);
  chownSync(repo, OTHER.uid, OTHER.gid);
  return repo;
}

const ownerOf = (path: string) => {
  const { uid, gid } = statSync(path);
  return { uid, gid };
};

describe.skipIf(!asRoot)('files keep their owner (run as root)', () => {
  it('atomicWrite keeps the uid, gid and mode (set-group-id included) of the file it replaces', async () => {
    const repo = foreignCheckout();
    const path = join(repo, 'tool.py');
    writeFileSync(path, 'old\n');
    chownSync(path, OTHER.uid, OTHER.gid);
    chmodSync(path, 0o2750);
    await atomicWrite(path, Buffer.from('new\n'), { expectSha256: sha256('old\n') });
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect(ownerOf(path)).toEqual(OTHER);
    expect(statSync(path).mode & 0o7777).toBe(0o2750);
    // Nothing left beside it (the temp file was renamed over).
    expect(readdirSync(repo)).toEqual(['tool.py']);
  });

  it('atomicWrite keeps a root-owned file root-owned in a checkout owned by someone else', async () => {
    const repo = foreignCheckout();
    const path = join(repo, 'root.py');
    writeFileSync(path, 'old\n', { mode: 0o600 });
    await atomicWrite(path, Buffer.from('new\n'));
    expect(ownerOf(path)).toEqual({ uid: 0, gid: process.getgid!() });
    expect(statSync(path).mode & 0o7777).toBe(0o600);
  });

  it('makeOwnedDirectory gives every directory it creates the owner of the one that existed', () => {
    const repo = foreignCheckout();
    expect(ownerToAdopt(repo)).toEqual(OTHER);
    expect(makeOwnedDirectory(join(repo, 'a', 'b', 'c'))).toEqual(OTHER);
    for (const dir of ['a', 'a/b', 'a/b/c']) expect(ownerOf(join(repo, dir)), dir).toEqual(OTHER);
    // A directory owned by root: nothing to hand over.
    expect(ownerToAdopt(mkdtempSync(join(tmpdir(), 'piper-owner-root-')))).toBeNull();
  });

  it('.piper/, the ledger with its -wal and -shm, and the run lock belong to the checkout owner', () => {
    const repo = foreignCheckout();
    const lock = RepoLock.acquire(repo, { command: 'fix' });
    lock.setRunId('r-test');
    expect(ownerOf(join(repo, '.piper'))).toEqual(OTHER);
    expect(ownerOf(repoLockPath(repo))).toEqual(OTHER);
    const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
    createRun(ledger, { kind: 'fix', repo, owner: 'test' });
    const files = readdirSync(join(repo, '.piper')).sort();
    expect(files).toEqual(['.gitignore', 'ledger.db', 'ledger.db-shm', 'ledger.db-wal', 'run.lock']);
    for (const file of files) expect(ownerOf(join(repo, '.piper', file)), file).toEqual(OTHER);
    ledger.close();
    lock.release();
    // A second open of the existing ledger (its -wal and -shm made anew by SQLite) keeps them OTHER's.
    const again = Ledger.open(join(repo, '.piper', 'ledger.db'));
    createRun(again, { kind: 'fix', repo, owner: 'test' });
    for (const file of readdirSync(join(repo, '.piper')))
      expect(ownerOf(join(repo, '.piper', file)), file).toEqual(OTHER);
    again.close();
  });

  it('a ledger outside any checkout (root-owned directory) stays root-owned', () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-owner-root-'));
    const ledger = Ledger.open(join(dir, 'sub', 'ledger.db'));
    ledger.close();
    expect(ownerOf(join(dir, 'sub')).uid).toBe(0);
    expect(ownerOf(join(dir, 'sub', 'ledger.db')).uid).toBe(0);
  });
});
