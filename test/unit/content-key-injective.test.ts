// The content key decides reuse across checkouts (an environment's project layer, a suite run's
// verdict): two trees that pack differently must never share it. Each case is a pair of real trees
// that an unframed, capped or kind-blind hash would have confused.
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepSnapshot } from '../../primitives/regression/suite-snapshot.js';
import { repoFileSha256, snapshotContentKey } from '../../runtime/workspace/content-key.js';
import { planSnapshot } from '../../runtime/workspace/snapshot.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-content-key-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Tree = Record<string, string | { link: string }>;

function tree(entries: Tree): string {
  const dir = mkdtempSync(join(scratch, 't-'));
  for (const [path, value] of Object.entries(entries)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    if (typeof value === 'string') writeFileSync(join(dir, path), value);
    else symlinkSync(value.link, join(dir, path));
  }
  return dir;
}

const keyOf = (dir: string) => snapshotContentKey(planSnapshot(dir));

/** A sparse file one byte over 64 MiB, every byte zero but its last. */
function bigTree(last: number): string {
  const dir = tree({ 'setup.py': 'pass\n' });
  const path = join(dir, 'big.bin');
  const size = 64 * 1024 * 1024 + 1;
  writeFileSync(path, '');
  truncateSync(path, size);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Uint8Array.of(last), 0, 1, size - 1);
  } finally {
    closeSync(fd);
  }
  return dir;
}

describe('the snapshot content key', () => {
  it('is equal for identical trees, links included, and in the gate the same as for the environment', async () => {
    const entries: Tree = { 'a.py': 'x = 1\n', 'pkg/b.py': '', 'pkg/link.py': { link: 'b.py' } };
    const one = tree(entries);
    const two = tree(entries);
    expect(planSnapshot(one).entries.map((e) => e.kind)).toEqual(['file', 'file', 'symlink']);
    expect(keyOf(one)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyOf(two)).toBe(keyOf(one));
    expect((await keepSnapshot(one)).contentKey).toBe(keyOf(one));
  });

  it('tells a link from a file whose text is what the old key hashed for it', async () => {
    const link = tree({ t: 'target', a: { link: 't' } });
    const file = tree({ t: 'target', a: '-> t' });
    expect(keyOf(link)).not.toBe(keyOf(file));
    expect((await keepSnapshot(link)).contentKey).not.toBe((await keepSnapshot(file)).contentKey);
    // A file holding exactly the link's target is not the link either.
    expect(keyOf(tree({ t: 'target', a: 't' }))).not.toBe(keyOf(link));
  });

  it('frames every path and every content: no boundary can be shifted', () => {
    const keys = [
      tree({ a: 'bc' }),
      tree({ ab: 'c' }),
      tree({ abc: '' }),
      tree({ a: 'b', c: '' }),
      tree({ a: '', bc: '' }),
      // The old keys' separator inside a content: each pair was one text to the old suite key
      // (`path NUL content NUL`) or the old snapshot key (`kind NUL path NUL content NUL`).
      tree({ a: 'x\0b\0y', c: '' }),
      tree({ a: 'x', b: 'y\0c\0' }),
      tree({ a: 'x\0file\0b\0y' }),
      tree({ a: 'x', b: 'y' }),
      tree({ a: 'xy' }),
    ].map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('covers every byte of a file over 64 MiB: two that differ only in their last byte differ', () => {
    const one = bigTree(1);
    const two = bigTree(2);
    const same = bigTree(1);
    expect(keyOf(one)).not.toBe(keyOf(two));
    expect(keyOf(same)).toBe(keyOf(one));
    const whole = repoFileSha256(one, 'big.bin');
    expect(whole).toMatch(/^[0-9a-f]{64}$/);
    expect(repoFileSha256(two, 'big.bin')).not.toBe(whole);
    expect(repoFileSha256(one, 'missing.py')).toBeNull();
  }, 60_000);

  it('refuses a tree that changed since it was planned, naming the file', () => {
    const dir = tree({ 'a.py': 'x', 'b.py': 'y' });
    const plan = planSnapshot(dir);
    rmSync(join(dir, 'a.py'));
    mkdirSync(join(dir, 'a.py'));
    expect(() => snapshotContentKey(plan)).toThrow(/a\.py is a directory, not a regular file/);
    rmSync(join(dir, 'b.py'));
    expect(() => snapshotContentKey({ ...plan, entries: plan.entries.slice(1) })).toThrow(/b\.py vanished/);
  });

  it.skipIf(process.getuid?.() === 0)(
    'refuses a file it cannot read, naming it, rather than hash a message',
    () => {
      const dir = tree({ 'ok.py': '', 'secret.py': 'x' });
      chmodSync(join(dir, 'secret.py'), 0o000);
      try {
        expect(() => keyOf(dir)).toThrow(/secret\.py is unreadable/);
        expect(() => repoFileSha256(dir, 'secret.py')).toThrow(/secret\.py is unreadable/);
      } finally {
        chmodSync(join(dir, 'secret.py'), 0o644);
      }
    },
  );
});
