// A list of repo-relative files as a tar stream. Parent directories are emitted first, writable by
// the sandbox user, because the files are unpacked by an unprivileged user into an empty tmpfs.
import { createReadStream, lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

export function packFiles(root: string, files: string[]): Readable {
  const pack = tar.pack();
  const dirs = new Set<string>();
  const write = async () => {
    for (const path of files) {
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (dirs.has(dir)) continue;
        dirs.add(dir);
        await entry(pack, { name: dir, type: 'directory', mode: 0o755 });
      }
      const full = join(root, path);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) {
        await entry(pack, { name: path, type: 'symlink', linkname: readlinkSync(full), mode: 0o777 });
        continue;
      }
      // Owner bits only matter for the unprivileged user: keep the executable bit, make it readable.
      const mode = (st.mode & 0o111 ? 0o755 : 0o644) as number;
      const sink = pack.entry({
        name: path,
        type: 'file',
        size: st.size,
        mode,
        mtime: st.mtime,
      } as tar.Header);
      await pipeline(createReadStream(full), sink);
    }
  };
  write()
    .then(() => pack.finalize())
    .catch((error: Error) => pack.destroy(error));
  return pack as unknown as Readable;
}

function entry(pack: tar.Pack, header: Partial<tar.Header>): Promise<void> {
  return new Promise((resolve, reject) =>
    pack.entry(header as tar.Header, (e) => (e ? reject(e) : resolve())),
  );
}
