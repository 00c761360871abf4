// The sandbox image's recipe: the files of sandbox-images/python. Their hash names the image
// (label piper.recipe.hash, tag = first 12 hex digits), so a changed recipe gives a new image and
// an unchanged one is never rebuilt.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

export const IMAGE_REPO = 'piper-sandbox-python';
export const RECIPE_LABEL = 'piper.recipe.hash';

export interface Recipe {
  dir: string;
  hash: string;
  /** The image reference this recipe builds: piper-sandbox-python:<hash12>. */
  ref: string;
  tag: string;
  env: string[];
  workdir: string;
}

export function loadRecipe(dir = join(packageRoot(), 'sandbox-images', 'python')): Recipe {
  const files = readdirSync(dir).sort();
  const hash = createHash('sha256');
  for (const name of files) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(dir, name)));
    hash.update('\0');
  }
  const digest = hash.digest('hex');
  const meta = JSON.parse(readFileSync(join(dir, 'recipe.json'), 'utf8')) as {
    env: string[];
    workdir: string;
  };
  const tag = digest.slice(0, 12);
  return { dir, hash: digest, tag, ref: `${IMAGE_REPO}:${tag}`, env: meta.env, workdir: meta.workdir };
}
