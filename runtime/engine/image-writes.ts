// The engine calls that make an image from a stream (a root filesystem tar, a build context): the
// engine answers with a progress stream whose last events say whether it worked.
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';
import { engineFailure } from './engine-failure.js';
import type { ProgressListener } from './engine-types.js';

/** POST /images/create?fromSrc=- : a root filesystem tar becomes an image; `changes` are Dockerfile lines. */
export async function importRootfs(
  docker: Docker,
  rootfsTar: Readable,
  target: { repo: string; tag: string; changes: string[] },
  onProgress: ProgressListener,
): Promise<void> {
  // `repo=name:tag` and no `tag`: Podman's compatible import drops a separate `tag` (the image
  // would be `name:latest`); Docker reads a tag inside `repo` the same way.
  const response = await docker
    .importImage(rootfsTar as unknown as string, {
      repo: `${target.repo}:${target.tag}`,
      changes: target.changes,
    })
    .catch((error: unknown) => {
      throw engineFailure('import image', error);
    });
  await followProgress(docker, response as unknown as Readable, onProgress);
}

/** POST /build with a tar build context (the Dockerfile path). */
export async function buildFromContext(
  docker: Docker,
  context: Readable,
  options: { t: string; labels: Record<string, string>; buildargs?: Record<string, string> },
  onProgress: ProgressListener,
): Promise<void> {
  const response = await docker
    .buildImage(context as unknown as string, {
      t: options.t,
      labels: options.labels,
      rm: true,
      ...(options.buildargs ? { buildargs: options.buildargs } : {}),
    })
    .catch((error: unknown) => {
      throw engineFailure('build image', error);
    });
  await followProgress(docker, response as unknown as Readable, onProgress);
}

function followProgress(docker: Docker, stream: Readable, onProgress: ProgressListener): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: Array<{ error?: string }>) => {
        const failed = events?.find((e) => e.error);
        if (error || failed)
          reject(new RuntimeError('image_build_failed', String(error?.message ?? failed?.error)));
        else resolve();
      },
      onProgress,
    );
  });
}
