// Writing a file so that a reader (or a crash) sees the old bytes or the new, never a mix: a temp
// file beside it (same directory = same filesystem, so rename is atomic), fsync, then rename over.
// The file's permission bits are kept; the directory is fsynced so the rename itself is durable.
import { createHash, randomBytes } from 'node:crypto';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function atomicWrite(path: string, data: Uint8Array): Promise<void> {
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
