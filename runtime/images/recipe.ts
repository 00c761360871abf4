// The sandbox image's recipe: the files of sandbox-images/python, built for one Debian suite.
// The hash of those files and the suite names the image (label piper.recipe.hash, tag = first 12
// hex digits), so a changed recipe or another suite gives a new image and an unchanged one is
// never rebuilt. recipe.json names the default suite and every suite it can build.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeError } from '../errors.js';
import { packageRoot } from '../package-root.js';

export const IMAGE_REPO = 'piper-sandbox-python';
export const RECIPE_LABEL = 'piper.recipe.hash';

/** The Debian suites the recipe builds, and the python3 each one ships. */
export const SUITE_PYTHON = { trixie: '3.13', bookworm: '3.11', bullseye: '3.9' } as const;
export type Suite = keyof typeof SUITE_PYTHON;
export type SandboxPython = (typeof SUITE_PYTHON)[Suite];

export const DEFAULT_SUITE: Suite = 'trixie';

export interface Recipe {
  dir: string;
  hash: string;
  /** The image reference this recipe builds: piper-sandbox-python:<hash12>. */
  ref: string;
  tag: string;
  suite: Suite;
  /** The sandbox's python3 version (major.minor). */
  python: SandboxPython;
  env: string[];
  workdir: string;
}

export interface RecipeOptions {
  /** Default: sandbox-images/python of this package. */
  dir?: string;
  /** Default: recipe.json's `suite`. */
  suite?: Suite;
}

/** The python3 (major.minor) of the sandbox image built for `suite`. */
export function sandboxPython(suite: Suite = DEFAULT_SUITE): SandboxPython {
  return SUITE_PYTHON[suite];
}

export function isSuite(name: string): name is Suite {
  return Object.hasOwn(SUITE_PYTHON, name);
}

/** A recipe directory as a string is the older call form (ci-image.ts uses it). */
export function loadRecipe(options: RecipeOptions | string = {}): Recipe {
  const opts = typeof options === 'string' ? { dir: options } : options;
  const dir = opts.dir ?? join(packageRoot(), 'sandbox-images', 'python');
  const meta = JSON.parse(readFileSync(join(dir, 'recipe.json'), 'utf8')) as {
    suite: string;
    suites?: Record<string, unknown>;
    env: string[];
    workdir: string;
  };
  const suite = opts.suite ?? meta.suite;
  if (!isSuite(suite) || (meta.suites && !Object.hasOwn(meta.suites, suite))) {
    throw new RuntimeError(
      'image_build_failed',
      `the sandbox recipe does not build Debian suite '${suite}'`,
      `use one of: ${Object.keys(SUITE_PYTHON).join(', ')}`,
    );
  }
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) {
    // The README says why each package is there and what it costs: it changes no image.
    if (name === 'README.md') continue;
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(dir, name)));
    hash.update('\0');
  }
  hash.update(`suite\0${suite}`);
  const digest = hash.digest('hex');
  const tag = digest.slice(0, 12);
  return {
    dir,
    hash: digest,
    tag,
    ref: `${IMAGE_REPO}:${tag}`,
    suite,
    python: SUITE_PYTHON[suite],
    env: meta.env,
    workdir: meta.workdir,
  };
}
