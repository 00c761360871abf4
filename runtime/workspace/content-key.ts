// The content key of a snapshot: one sha256 over every packed entry, so that two trees which pack
// differently never share a key. It decides reuse where reuse hands one checkout's results to
// another: the environment image its project's build code ran in (plan/build-facts.ts) and a suite
// run's verdict (primitives/regression/suite-snapshot.ts). So the key covers every byte and leaves
// nothing to how the bytes happen to line up:
// - each entry is its kind (a link is its own kind, never a file whose text names its target), its
//   path and its content (a file's bytes, a link's target), each field preceded by its length in 8
//   bytes, big-endian: no boundary between a path and its bytes, or between two entries, can move;
// - a file is read whole, in chunks, whatever its size: a size cap's refusal would be hashed where
//   the bytes should be, and every file over the cap would have the same content;
// - a file that cannot be read, or changes size while read, fails the key with a reason: a key that
//   left it out would also be the key of the tree without it.
import { createHash, type Hash } from 'node:crypto';
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeError } from '../errors.js';
import { insideRepo, isWithin } from '../host/inside-repo.js';
import { openRegular, readAt, realPathOf } from '../host/open-regular.js';
import type { SnapshotPlan } from './snapshot.js';

const CHUNK = 1 << 20;
// The key's version, in the hashed bytes. Its first byte is NUL, which began none of the earlier
// keys' texts (each began with a path or a kind's name): no tree's old key is any tree's new one.
const VERSION = Buffer.from('\0piper-content-key/2\0');
// A snapshot packs regular files and links only (snapshot.ts); anything else is skipped, not keyed.
const KIND = { file: 0x01, symlink: 0x02 } as const;

function lengthOf(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

function framed(hash: Hash, bytes: Buffer): void {
  hash.update(lengthOf(bytes.length)).update(bytes);
}

/** The sha256 (hex) of every planned entry: kind, path and whole content, each length-framed. */
export function snapshotContentKey(plan: Pick<SnapshotPlan, 'root' | 'entries'>): string {
  const hash = createHash('sha256').update(VERSION);
  for (const entry of plan.entries) {
    hash.update(Uint8Array.of(KIND[entry.kind]));
    framed(hash, Buffer.from(entry.path, 'utf8'));
    if (entry.kind === 'symlink') framed(hash, Buffer.from(entry.linkname, 'utf8'));
    else {
      const failed = streamFile(join(plan.root, entry.path), plan.root, {
        size: (n) => hash.update(lengthOf(n)),
        chunk: (bytes) => hash.update(bytes),
      });
      if (failed) throw refusal(entry.path, failed.why);
    }
  }
  return hash.digest('hex');
}

/**
 * The sha256 (hex) of repository file `rel`'s whole bytes, read in chunks whatever its size (a link
 * followed only to a regular file inside `realRoot`); null when there is no such file to read (it is
 * missing, outside the repository, or not a regular file: the snapshot packs none of these). A file
 * that is there but cannot be read whole is refused, as the snapshot's key refuses it.
 */
export function repoFileSha256(realRoot: string, rel: string): string | null {
  const real = insideRepo(realRoot, rel);
  if (real === null) return null;
  const hash = createHash('sha256');
  const failed = streamFile(real, realRoot, { size: () => undefined, chunk: (bytes) => hash.update(bytes) });
  if (failed?.absent) return null;
  if (failed) throw refusal(rel, failed.why);
  return hash.digest('hex');
}

/** Why a file's bytes were not all read; `absent`: there is no regular file there (any more). */
interface Failed {
  why: string;
  absent: boolean;
}

/**
 * Feeds the regular file at `path` to `sink`: its size (from the opened descriptor), then all of its
 * bytes. Opened as the snapshot packs it (no final link, no blocking, still inside `root`). Returns
 * null when the sink has had every byte, else why not (the sink is then incomplete).
 */
function streamFile(
  path: string,
  root: string,
  sink: { size: (n: number) => void; chunk: (bytes: Buffer) => void },
): Failed | null {
  const opened = openRegular(path);
  if ('error' in opened) {
    const { error } = opened;
    if (error === 'vanished') return { why: 'vanished', absent: true };
    if (error === 'unreadable') return { why: 'is unreadable', absent: false };
    if (error.startsWith('cannot open'))
      return { why: error.replace('cannot open', 'cannot be opened'), absent: false };
    return { why: `is a ${error}, not a regular file`, absent: true };
  }
  try {
    const where = realPathOf(opened.fd);
    if (where !== null && !isWithin(root, where))
      return { why: 'lies outside the repository, through a changed directory', absent: true };
    const size = opened.stat.size;
    sink.size(size);
    for (let at = 0; at < size; at += CHUNK) {
      const read = readAt(opened.fd, at, Math.min(CHUNK, size - at));
      if (read.short) return { why: 'shrank while read', absent: false };
      sink.chunk(read.bytes);
    }
    if (readAt(opened.fd, size, 1).bytes.length > 0) return { why: 'grew while read', absent: false };
    return null;
  } catch (error) {
    return { why: `cannot be read (${(error as Error).message})`, absent: false };
  } finally {
    closeSync(opened.fd);
  }
}

function refusal(path: string, why: string): RuntimeError {
  return new RuntimeError(
    'bad_spec',
    `cannot key the repository's content: ${path} ${why}; a content key covers every byte of every file, so none can be left out of it`,
    `make ${path} readable and leave it unchanged while piper reads it, or leave it out of the snapshot with .gitignore`,
  );
}
