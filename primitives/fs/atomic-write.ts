// Writing a file so that a reader (or a crash) sees the old bytes or the new, never a mix: a temp
// file beside it (same directory = same filesystem, so rename is atomic), fsync, then rename over.
// The file's permission bits are kept; the directory is fsynced so the rename itself is durable.
//
// Compare-and-swap (issue 10 item 5): with `expectSha256`, the file is re-read just before the
// rename and the write happens only if it still has the hash the caller read, so a change made on
// disk meanwhile (an editor, another process) is never overwritten. The check and the rename are
// two steps; the repository's run lock (runtime/host/repo-lock.ts) keeps other piper-agent runs out
// of that gap, and the gap is a few syscalls wide for anyone else.
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file no longer has the bytes the caller read: nothing was written. */
export class FileChangedError extends Error {
  constructor(
    readonly path: string,
    readonly expectedSha256: string,
    readonly actualSha256: string | null,
  ) {
    super(`${path} changed on disk since it was read`);
    this.name = 'FileChangedError';
  }
}

export interface AtomicWriteOptions {
  /** Write only if the file still hashes to this (sha256 hex); else FileChangedError. */
  expectSha256?: string;
  /** Runs after the new content is on disk beside the file, before the check: tests race here. */
  beforeSwap?: () => Promise<void> | void;
}

export async function atomicWrite(
  path: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const { mode } = await stat(path);
  const temp = join(dirname(path), `.${basename(path)}.piper-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode & 0o7777);
    try {
      await handle.writeFile(data);
      // The umask may have narrowed the mode given to open(): set it exactly.
      await handle.chmod(mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeSwap?.();
    if (options.expectSha256 !== undefined) {
      const now = await readFile(path).then(sha256, () => null);
      if (now !== options.expectSha256) throw new FileChangedError(path, options.expectSha256, now);
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename has happened either way.
  }
}

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
