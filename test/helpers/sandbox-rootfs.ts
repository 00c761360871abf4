// The sandbox image's root filesystem in the offline build's cache, so that building the image
// through a second engine (Podman) imports it in seconds instead of running debootstrap again
// (ten minutes and more on a loaded machine). `make image` leaves it there; where it is missing
// but the Docker engine has the image (the cache cleared, or the image older than the cache), it is
// taken back from that image: an image the offline build imported has a single layer, and that
// layer is the root filesystem. Written whole, then renamed, as the build writes it.
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Docker from 'dockerode';
import tar from 'tar-stream';
import { rootfsCachePath } from '../../runtime/images/build.js';
import { loadRecipe } from '../../runtime/images/recipe.js';

/** Entries this small (manifest.json, the image config) are kept in memory; the layers go to disk. */
const SMALL = 1 << 20;

export async function ensureSandboxRootfs(): Promise<string> {
  const recipe = loadRecipe();
  const dest = rootfsCachePath(recipe);
  if (existsSync(dest)) return dest;
  mkdirSync(dirname(dest), { recursive: true });
  const work = mkdtempSync(join(dirname(dest), 'rootfs-from-image-'));
  try {
    const saved = (await new Docker().getImage(recipe.ref).get()) as unknown as Readable;
    const { small, files } = await unpackSave(saved, work);
    const manifest = JSON.parse(small.get('manifest.json') ?? '[]') as Array<{ Layers?: string[] }>;
    const layers = manifest[0]?.Layers ?? [];
    const file = layers.length === 1 ? files.get(layers[0]!) : undefined;
    if (!file)
      throw new Error(
        `${recipe.ref} on the Docker engine has ${layers.length} layers, not the one root filesystem ` +
          'the offline build imports: run `piper-agent image build --force`',
      );
    renameSync(file, dest);
    return dest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `docker save`'s tar: its small entries as text, its large ones written under `work`. */
async function unpackSave(
  saved: Readable,
  work: string,
): Promise<{ small: Map<string, string>; files: Map<string, string> }> {
  const small = new Map<string, string>();
  const files = new Map<string, string>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const done = (error?: unknown) => (error ? extract.destroy(error as Error) : next());
    if (header.type !== 'file') {
      stream.resume();
      stream.on('end', () => done());
      return;
    }
    if ((header.size ?? 0) < SMALL) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        small.set(header.name, Buffer.concat(chunks).toString('utf8'));
        done();
      });
      return;
    }
    const path = join(work, `entry-${files.size}.tar`);
    files.set(header.name, path);
    pipeline(stream, createWriteStream(path, { mode: 0o600 })).then(() => done(), done);
  });
  await pipeline(saved, extract);
  return { small, files };
}
