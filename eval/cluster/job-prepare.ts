// Inside a Swarm job, before the instance runs: the node pulled the sandbox image from the registry
// under the registry's name (REGISTRY/piper-sandbox-python:<hash12>), and the environment build
// looks for it under piper's own tag only (runtime/env/choose/ensure.ts, baseImage). The job tags it, after
// checking it carries this recipe's hash, so an image of another recipe is never taken for it.
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { RuntimeError } from '../../runtime/errors.js';
import { IMAGE_REPO, RECIPE_LABEL, loadRecipe } from '../../runtime/images/recipe.js';

/** The environment variable `ab --cluster swarm` sets on a job when images come from a registry. */
export const JOB_SANDBOX_IMAGE_ENV = 'PIPER_JOB_SANDBOX_IMAGE';

export async function tagPulledSandboxImage(pulledRef: string): Promise<void> {
  const recipe = loadRecipe();
  const engine = new DockerEngine();
  const pulled = await engine.inspectImage(pulledRef);
  if (!pulled)
    throw new RuntimeError(
      'image_missing',
      `the node has no ${pulledRef}: the sandbox image did not reach it`,
    );
  if (pulled.labels[RECIPE_LABEL] !== recipe.hash)
    throw new RuntimeError(
      'image_missing',
      `${pulledRef} is not this recipe's sandbox image (label ${RECIPE_LABEL} is not ${recipe.hash})`,
    );
  await engine.tagImage(pulled.id, IMAGE_REPO, recipe.tag);
}
