// Integration tests run against the real engine and the real sandbox image. `make test` starts the
// engine and builds the image first; run alone, vitest says what is missing instead of failing
// fifty tests one by one.
import { probeEngine } from '../../runtime/engine/bootstrap.js';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { loadRecipe } from '../../runtime/images/recipe.js';

export default async function setup(): Promise<void> {
  const engine = new DockerEngine();
  const info = await probeEngine(engine);
  if (!info)
    throw new Error('no Docker engine answers: run `make engine` (or `piper-agent engine up`) first');
  const ref = loadRecipe().ref;
  if (!(await engine.imageId(ref))) throw new Error(`sandbox image ${ref} missing: run \`make image\` first`);
}
