// Planned snapshot entries as a tar stream. Parent directories are emitted first, writable by the
// sandbox user, because the files are unpacked by an unprivileged user into an empty tmpfs. Each
// file is opened without following a link or blocking (open-regular.ts) and must still be a
// regular file inside the repository; one that is not, or that vanished since the plan, is added
// to `skipped` instead of failing the stream.
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { isWithin } from '../host/inside-repo.js';
import { openRegular, readAt, realPathOf } from '../host/open-regular.js';
import type { SkippedEntry, SnapshotEntry } from './snapshot.js';

const CHUNK = 1 << 20;

type Sink = ReturnType<tar.Pack['entry']>;

export function packFiles(root: string, entries: SnapshotEntry[], skipped: SkippedEntry[]): Readable {
  const pack = tar.pack();
  const dirs = new Set<string>();
  const write = async () => {
    for (const item of entries) {
      const { path } = item;
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (dirs.has(dir)) continue;
        dirs.add(dir);
        await entry(pack, { name: dir, type: 'directory', mode: 0o755 });
      }
      if (item.kind === 'symlink') {
        await entry(pack, { name: path, type: 'symlink', linkname: item.linkname, mode: 0o777 });
        continue;
      }
      const full = join(root, path);
      const opened = openRegular(full);
      if ('error' in opened) {
        skipped.push({
          path,
          reason: opened.error === 'vanished' ? 'vanished before packing' : opened.error,
        });
        continue;
      }
      try {
        // A parent directory swapped for a link since the plan: the open followed it.
        const real = realPathOf(opened.fd);
        if (real !== null && !isWithin(root, real)) {
          skipped.push({ path, reason: 'outside the repository (changed while packing)' });
          continue;
        }
        const { stat } = opened;
        // Owner bits only matter for the unprivileged user: keep the executable bit, make it readable.
        const mode = stat.mode & 0o111 ? 0o755 : 0o644;
        let sink!: Sink;
        const written = new Promise<void>((resolve, reject) => {
          sink = pack.entry({ name: path, type: 'file', size: stat.size, mode, mtime: stat.mtime }, (e) =>
            e ? reject(e) : resolve(),
          );
        });
        const short = await copy(opened.fd, stat.size, sink);
        await written;
        if (short) {
          skipped.push({ path, reason: 'shrank while packing; the rest is zeros' });
        }
      } finally {
        closeSync(opened.fd);
      }
    }
  };
  write()
    .then(() => pack.finalize())
    .catch((error: Error) => pack.destroy(error));
  return pack as unknown as Readable;
}

/** Copies exactly `size` bytes (zero-padded if the file shrank: the header already says `size`). */
async function copy(fd: number, size: number, sink: Sink): Promise<boolean> {
  let short = false;
  for (let at = 0; at < size;) {
    const want = Math.min(CHUNK, size - at);
    let chunk: Buffer;
    if (short) chunk = Buffer.alloc(want);
    else {
      const read = readAt(fd, at, want);
      short = read.short;
      chunk = short ? Buffer.concat([read.bytes, Buffer.alloc(want - read.bytes.length)]) : read.bytes;
    }
    if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()));
    at += want;
  }
  sink.end(undefined);
  return short;
}

function entry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0]): Promise<void> {
  return new Promise((resolve, reject) => pack.entry(header, (e) => (e ? reject(e) : resolve())));
}
