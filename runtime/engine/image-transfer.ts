// Moving piper's images between engines without Docker Hub (docs/scale.md): `docker save | docker
// load` from one engine's API to another's, and a push to the registry the user names, from the
// manager's engine (the one engine of the cluster `ab` is sure to reach), for the nodes to pull.
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';

async function hasImage(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

/** Copies `ref` from one engine to another unless the target has it already; whether it copied. */
export async function copyImage(from: Docker, to: Docker, ref: string): Promise<boolean> {
  if (await hasImage(to, ref)) return false;
  if (!(await hasImage(from, ref)))
    throw new RuntimeError('image_missing', `cannot copy ${ref}: the local engine does not have it`);
  const saved = (await from.getImage(ref).get()) as unknown as Readable;
  const loaded = (await to.loadImage(saved, { quiet: true })) as unknown as Readable;
  await follow(to, loaded, `load ${ref}`);
  return true;
}

/** Tags `ref` as REGISTRY/ref on `docker` and pushes it there; the registry's name for it. */
export async function pushToRegistry(docker: Docker, ref: string, registry: string): Promise<string> {
  const [repo, tag = 'latest'] = ref.split(':') as [string, string?];
  const target = `${registry}/${repo}`;
  await docker.getImage(ref).tag({ repo: target, tag });
  // Docker 20.10 answers a push without X-Registry-Auth with 400, even for a registry with no
  // authentication: an empty auth config (the header `e30=`, "{}") says anonymous.
  const anonymous = {} as Docker.AuthConfig;
  const stream = (await docker
    .getImage(`${target}:${tag}`)
    .push({ authconfig: anonymous })) as unknown as Readable;
  await follow(docker, stream, `push ${target}:${tag}`);
  return `${target}:${tag}`;
}

function follow(docker: Docker, stream: Readable, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, events: Array<{ error?: string }>) => {
      const failed = events?.find((e) => e.error);
      if (error || failed)
        reject(
          new RuntimeError('engine_error', `cannot ${what}: ${String(error?.message ?? failed?.error)}`),
        );
      else resolve();
    });
  });
}
