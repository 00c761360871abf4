// Small tars in memory, both ways: what a build container holds at a path, read whole (the engine's
// archive endpoint), and the files piper writes into an image, packed with the snapshot's own
// header writer. Only for the few small files of a project's installed metadata.
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { padding, TAR_END, tarHeader } from '../../workspace/tar-header.js';

export interface TarFile {
  /** The entry's name as the tar has it (the engine's archive names are relative to the path's parent). */
  name: string;
  type: 'file' | 'directory' | 'other';
  data: Buffer;
}

export async function readTar(bytes: Buffer, _max?: number): Promise<TarFile[]> {
  const extract = tar.extract();
  const files: TarFile[] = [];
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => void chunks.push(c as Buffer));
      stream.on('end', () => {
        const type = header.type === 'file' ? 'file' : header.type === 'directory' ? 'directory' : 'other';
        files.push({ name: header.name.replace(/\/$/, ''), type, data: Buffer.concat(chunks) });
        next();
      });
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(bytes);
  await done;
  return files;
}

export interface FileToWrite {
  /** Absolute path in the image. */
  path: string;
  data: Buffer;
  mode: number;
}

/** A tar to unpack at `/`: each file's parent directories (0755) first, then the file. */
export function packAbsolute(files: FileToWrite[]): Readable {
  const parts: Buffer[] = [];
  const dirs = new Set<string>();
  for (const f of files) {
    const rel = f.path.replace(/^\/+/, '');
    const segments = rel.split('/');
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      parts.push(tarHeader({ name: dir, type: 'directory', mode: 0o755 }));
    }
    parts.push(tarHeader({ name: rel, type: 'file', mode: f.mode, size: f.data.length }));
    parts.push(f.data, Buffer.alloc(padding(f.data.length)));
  }
  parts.push(TAR_END);
  return Readable.from([Buffer.concat(parts)]);
}
