// Opening a repository file without trusting what it is: never through a final symbolic link
// (O_NOFOLLOW), never blocking on a FIFO or a device (O_NONBLOCK), and only kept when the opened
// descriptor is a regular file (fstat after open, so a file swapped for something else between a
// listing and the open is caught).
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';

export type OpenedFile = { fd: number; stat: Stats } | { error: string };

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export function openRegular(path: string): OpenedFile {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { error: 'vanished' };
    if (code === 'ELOOP') return { error: 'symlink' };
    if (code === 'EACCES' || code === 'EPERM') return { error: 'unreadable' };
    return { error: `cannot open (${code ?? (error as Error).message})` };
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    return { error: kindOf(stat) };
  }
  return { fd, stat };
}

/**
 * Up to `length` bytes of `fd` from `position`, or fewer when the file ends first (`short`: it
 * shrank since its size was taken). A file that grew is read as far as asked: callers that wrote
 * a size into a header keep it.
 */
export function readAt(fd: number, position: number, length: number): { bytes: Buffer; short: boolean } {
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  while (at < length) {
    const n = readSync(fd, bytes, at, length - at, position + at);
    if (n === 0) return { bytes: bytes.subarray(0, at), short: true };
    at += n;
  }
  return { bytes, short: false };
}

/** Where an open descriptor really is (Linux: /proc/self/fd), or null where that cannot be known. */
export function realPathOf(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/** What a non-regular file is, in the words a skip note uses. */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'directory';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'device';
  if (stat.isSymbolicLink()) return 'symlink';
  return 'not a regular file';
}
