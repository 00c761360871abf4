// Planned snapshot entries as a tar stream. Parent directories are emitted first, writable by the
// sandbox user, because the files are unpacked by an unprivileged user into an empty tmpfs. Each
// file is opened without following a link or blocking (open-regular.ts) and must still be a
// regular file inside the repository; one that is not, or that vanished since the plan, is added
// to `skipped` instead of failing the stream. The stream is pulled: files are read as the reader
// asks for bytes, in batches, so memory stays bounded whatever the repository's size.
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isWithin } from '../host/inside-repo.js';
import { openRegular, readAt, realPathOf } from '../host/open-regular.js';
import type { SkippedEntry } from './repo-listing.js';
import { padding, TAR_END, tarHeader } from './tar-header.js';

/** Bytes gathered before one push; also the largest read of one file at a time. */
const BATCH = 1 << 20;

interface OpenFile {
  fd: number;
  path: string;
  size: number;
  at: number;
  short: boolean;
}

/** One path of a snapshot as the tar stream carries it: a regular file's bytes, or a link's target. */
export type SnapshotEntry =
  { path: string; kind: 'file'; size: number } | { path: string; kind: 'symlink'; linkname: string };

export function packFiles(root: string, entries: SnapshotEntry[], skipped: SkippedEntry[]): Readable {
  const packer = new TarPacker(root, entries, skipped);
  return new Readable({
    highWaterMark: BATCH,
    read() {
      try {
        const parts: Buffer[] = [];
        let bytes = 0;
        while (bytes < BATCH) {
          const p = packer.piece();
          if (p === null) {
            parts.push(TAR_END);
            this.push(Buffer.concat(parts));
            this.push(null);
            return;
          }
          parts.push(p);
          bytes += p.length;
        }
        this.push(Buffer.concat(parts));
      } catch (error) {
        this.destroy(error as Error);
      }
    },
    destroy(error, callback) {
      packer.abandon();
      callback(error);
    },
  });
}

/** The archive's pieces in order: each entry's parent directories, its header, its content. */
class TarPacker {
  private readonly dirs = new Set<string>();
  private next = 0;
  private open: OpenFile | null = null;

  constructor(
    private readonly root: string,
    private readonly entries: SnapshotEntry[],
    private readonly skipped: SkippedEntry[],
  ) {}

  /** The next piece of the archive, or null at its end. */
  piece(): Buffer | null {
    if (this.open) return this.continueFile(this.open);
    if (this.next >= this.entries.length) return null;
    const item = this.entries[this.next++]!;
    const parts: Buffer[] = [];
    const segments = item.path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join('/');
      if (this.dirs.has(dir)) continue;
      this.dirs.add(dir);
      parts.push(tarHeader({ name: dir, type: 'directory', mode: 0o755 }));
    }
    if (item.kind === 'symlink') {
      parts.push(tarHeader({ name: item.path, type: 'symlink', linkname: item.linkname, mode: 0o777 }));
    } else {
      const file = this.openFile(item.path);
      if (file) parts.push(file);
    }
    return Buffer.concat(parts);
  }

  /** Closes the file being read, when the stream ends early. */
  abandon(): void {
    if (this.open) closeSync(this.open.fd);
    this.open = null;
  }

  /** A file's header (and its content when small), or null when it is skipped after all. */
  private openFile(path: string): Buffer | null {
    const opened = openRegular(join(this.root, path));
    if ('error' in opened) {
      this.skipped.push({
        path,
        reason: opened.error === 'vanished' ? 'vanished before packing' : opened.error,
      });
      return null;
    }
    // A parent directory swapped for a link since the plan: the open followed it.
    const real = realPathOf(opened.fd);
    if (real !== null && !isWithin(this.root, real)) {
      closeSync(opened.fd);
      this.skipped.push({ path, reason: 'outside the repository, changed while packing' });
      return null;
    }
    const { stat } = opened;
    // Owner bits only matter for the unprivileged user: keep the executable bit, make it readable.
    const mode = stat.mode & 0o111 ? 0o755 : 0o644;
    const header = tarHeader({
      name: path,
      type: 'file',
      mode,
      size: stat.size,
      mtime: stat.mtime.getTime() / 1000,
    });
    this.open = { fd: opened.fd, path, size: stat.size, at: 0, short: false };
    return Buffer.concat([header, this.continueFile(this.open)]);
  }

  /** The next chunk of the open file (zeros once it came up short: the header promised its size). */
  private continueFile(file: OpenFile): Buffer {
    const want = Math.min(BATCH, file.size - file.at);
    let chunk: Buffer;
    if (file.short) chunk = Buffer.alloc(want);
    else {
      const read = readAt(file.fd, file.at, want);
      file.short = read.short;
      chunk = read.short ? Buffer.concat([read.bytes, Buffer.alloc(want - read.bytes.length)]) : read.bytes;
    }
    file.at += want;
    if (file.at < file.size) return chunk;
    closeSync(file.fd);
    this.open = null;
    if (file.short) this.skipped.push({ path: file.path, reason: 'shrank while packing; the rest is zeros' });
    return Buffer.concat([chunk, Buffer.alloc(padding(file.size))]);
  }
}
