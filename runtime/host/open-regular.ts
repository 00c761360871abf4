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

/** Why a bounded read did not return the bytes; `kind` is what a caller branches on. */
export interface ReadRefusal {
  error: string;
  kind: 'missing' | 'outside' | 'special' | 'too-large' | 'unreadable';
}

/** A size for a person: `1.0 GiB`, `4 MiB`, `512 bytes`. */
export function sizeText(bytes: number): string {
  const units = ['GiB', 'MiB', 'KiB'] as const;
  for (const [i, unit] of units.entries()) {
    const scale = 1024 ** (3 - i);
    if (bytes >= scale) return `${Number((bytes / scale).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * The bytes of the regular file at `path` (opened as openRegular does: no final link, no blocking),
 * refused before any byte is read when it is over `limit`: `name` and `what` say in the refusal which
 * file and which kind of file the limit is for.
 */
export function readRegularFile(
  path: string,
  opts: { limit: number; name: string; what: string; within?: (realPath: string) => boolean },
): Buffer | ReadRefusal {
  const opened = openRegular(path);
  if ('error' in opened) {
    const kind =
      opened.error === 'vanished' ? 'missing' : opened.error === 'unreadable' ? 'unreadable' : 'special';
    const why =
      kind === 'special'
        ? ` is a ${opened.error}, not a regular file; not read`
        : `: ${opened.error === 'vanished' ? 'no such file' : opened.error}`;
    return { error: `${opts.name}${why}`, kind };
  }
  try {
    const where = opts.within ? realPathOf(opened.fd) : null;
    if (where !== null && !opts.within!(where))
      return { error: `${opts.name} lies outside the repository`, kind: 'outside' };
    const { size } = opened.stat;
    if (size > opts.limit)
      return {
        error: `${opts.name} is ${sizeText(size)}, over the ${sizeText(opts.limit)} ${opts.what} may have; not read`,
        kind: 'too-large',
      };
    // A file that grew since fstat is read only up to the limit: what is past it is not trusted to end.
    return readAt(opened.fd, 0, size).bytes;
  } catch (error) {
    return { error: `${opts.name}: cannot read (${(error as Error).message})`, kind: 'unreadable' };
  } finally {
    closeSync(opened.fd);
  }
}
