// Reading a container's filesystem through the engine (a build container's, running or stopped):
// what its writable layer changed against its image, and a path's contents as a tar read whole.
// Both answer for a stopped container, which is how a build's last step is checked with nothing
// left running that could change it after the check. Paths in the answers are the container's:
// untrusted text.
import type Docker from 'dockerode';
import { RuntimeError } from '../errors.js';

export type ContainerChange = { path: string; kind: 'changed' | 'added' | 'deleted' };

const KINDS = ['changed', 'added', 'deleted'] as const;

/** GET /containers/{id}/changes (kind 0 changed, 1 added, 2 deleted). */
export async function containerChanges(container: Docker.Container): Promise<ContainerChange[]> {
  const list: unknown = await container.changes();
  // Docker 20.10 answers `null` for a container with no change, which dockerode hands back as the
  // raw body (a Buffer): anything but a list is no change.
  if (!Array.isArray(list)) return [];
  return (list as Array<{ Path: string; Kind: number }>).map((c) => ({
    path: c.Path,
    kind: KINDS[c.Kind] ?? 'changed',
  }));
}

/** GET /containers/{id}/archive: `path` (a file or a directory) as a tar, read whole up to `maxBytes`. */
export async function containerArchive(
  container: Docker.Container,
  path: string,
  maxBytes: number,
): Promise<Buffer> {
  const stream = (await container.getArchive({ path })) as AsyncIterable<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBytes)
      throw new RuntimeError(
        'engine_error',
        `${path} in container ${container.id.slice(0, 12)} is over ${maxBytes} bytes`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
