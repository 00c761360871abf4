// A directory as a tar stream (tar-stream), for the engine's image import and build context.
// Keeps modes, owners, symlinks and hard links; skips device nodes, fifos and sockets (the engine
// gives every container its own /dev). Entries are sorted, so the same tree gives the same tar.
import { createReadStream, lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

export interface PackProgress {
  entries: number;
  bytes: number;
}

export function packDirectory(root: string, onProgress?: (p: PackProgress) => void): Readable {
  const pack = tar.pack();
  const progress: PackProgress = { entries: 0, bytes: 0 };
  const seenInodes = new Map<string, string>();

  const walk = async (rel: string): Promise<void> => {
    const names = readdirSync(join(root, rel)).sort();
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const full = join(root, path);
      const st = lstatSync(full);
      const base = { name: path, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, mtime: st.mtime };
      if (st.isDirectory()) {
        await entry(pack, { ...base, type: 'directory' });
        await walk(path);
      } else if (st.isSymbolicLink()) {
        await entry(pack, { ...base, type: 'symlink', linkname: readlinkSync(full) });
      } else if (st.isFile()) {
        const inode = `${st.dev}:${st.ino}`;
        const first = st.nlink > 1 ? seenInodes.get(inode) : undefined;
        if (first) {
          await entry(pack, { ...base, type: 'link', linkname: first });
        } else {
          if (st.nlink > 1) seenInodes.set(inode, path);
          await fileEntry(pack, base, full, st);
          progress.bytes += st.size;
        }
      } else {
        continue; // devices, fifos, sockets
      }
      progress.entries++;
      if (progress.entries % 500 === 0) onProgress?.({ ...progress });
    }
  };

  walk('')
    .then(() => {
      onProgress?.({ ...progress });
      pack.finalize();
    })
    .catch((error: Error) => pack.destroy(error));
  return pack as unknown as Readable;
}

function entry(pack: tar.Pack, header: Partial<tar.Header>): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry(header as tar.Header, (error) => (error ? reject(error) : resolve()));
  });
}

async function fileEntry(pack: tar.Pack, base: Partial<tar.Header>, full: string, st: Stats): Promise<void> {
  const sink = pack.entry({ ...base, type: 'file', size: st.size } as tar.Header);
  await pipeline(createReadStream(full), sink);
}
