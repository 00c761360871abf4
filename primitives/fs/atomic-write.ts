// Writing a file so that a reader (or a crash) sees the old bytes or the new, never a mix: a temp
// file beside it (same directory = same filesystem, so rename is atomic), fsync, then rename over.
// The file's permission bits and owner are kept; the directory is fsynced so the rename itself is
// durable.
//
// Owner: the temp file is created by whoever runs piper — root, in a CI container
// on a checkout owned by the runner's uid — and would replace the file with a root-owned one that
// the job's next step (a `git commit` as the runner user) cannot write. So the temp file is given
// the original's uid and gid before the rename. There are no new files here: the file must exist.
//
// Compare-and-swap: with `expectSha256`, the file is re-read just before the
// rename and the write happens only if it still has the hash the caller read, so a change made on
// disk meanwhile (an editor, another process) is never overwritten. The check and the rename are
// two steps; the repository's run lock (runtime/host/repo-lock.ts) keeps other piper-agent runs out
// of that gap, and the gap is a few syscalls wide for anyone else.
import { createHash, randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { REPO_READ_LIMITS } from '../../runtime/host/inside-repo.js';
import { readRegularFile } from '../../runtime/host/open-regular.js';
import type { Stats } from 'node:fs';
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
  /** Aborted before the rename: nothing is written (the temp file is removed), its reason thrown. */
  signal?: AbortSignal;
}

export async function atomicWrite(
  path: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const original = await stat(path);
  const { mode } = original;
  const temp = join(dirname(path), `.${basename(path)}.piper-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode & 0o7777);
    try {
      await handle.writeFile(data);
      await keepOwner(handle, original);
      // The umask may have narrowed the mode given to open(): set it exactly. After the chown, which
      // clears set-user-id and set-group-id bits.
      await handle.chmod(mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeSwap?.();
    if (options.expectSha256 !== undefined) {
      // Bounded and non-blocking, as every read of a repository file (runtime/host/open-regular.ts).
      const read = readRegularFile(path, {
        limit: REPO_READ_LIMITS.any,
        name: path,
        what: 'a repository file',
      });
      const now = Buffer.isBuffer(read) ? sha256(read) : null;
      if (now !== options.expectSha256) throw new FileChangedError(path, options.expectSha256, now);
    }
    options.signal?.throwIfAborted();
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
}

/**
 * Gives the temp file the original's uid and gid where they differ. Root can always; anyone else
 * can only keep their own uid and pick a group they belong to, so a refusal (EPERM) there is
 * expected and skipped: the file is then owned by its writer, as with any editor that saves by
 * rename. Root refused (NFS root_squash, an unmapped uid in a user namespace) is skipped the same
 * way: the edit matters more than its owner.
 */
async function keepOwner(handle: FileHandle, original: Stats): Promise<void> {
  const now = await handle.stat();
  if (now.uid === original.uid && now.gid === original.gid) return;
  try {
    await handle.chown(original.uid, original.gid);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EPERM' && (error as { code?: string }).code !== 'EINVAL')
      throw error;
  }
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
