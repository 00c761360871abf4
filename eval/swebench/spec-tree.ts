// Where an instance's environment is planned from. Without a harness spec entry: its base tree. With
// one: a copy of the base tree beside it holding the entry's recipe as `.piper/sandbox.toml`, so the
// spec goes through the one recipe path every project's does (untrusted: no setup command, no index
// URL), while the base tree the agent works in and is graded from stays the repository's own. The
// copy is made once per commit and recipe (its name carries the recipe's digest).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { RECIPE_PATH } from '../../runtime/env/plan/recipe.js';
import { specEntry, type SpecEntry } from './harness-spec.js';
import type { SweInstance } from './instance-file.js';
import { specRecipe, type SpecRecipe } from './spec-recipe.js';

/** The spec an instance is built from, as its validation records it. */
export interface SpecUse {
  /** `astropy/astropy 5.0`. */
  entry: string;
  source: string;
  python: string | null;
  applied: string[];
  dropped: string[];
  /** The recipe's digest (12 hex), part of the instance's digest. */
  digest: string;
}

export interface InstanceSpec {
  use: SpecUse;
  toml: string;
}

export function instanceSpec(instance: SweInstance): InstanceSpec | null {
  const entry: SpecEntry | null = specEntry(instance);
  if (!entry) return null;
  const made: SpecRecipe = specRecipe(entry.spec);
  const toml = `# The SWE-bench harness's spec ${entry.repo} ${entry.version} (${entry.source})\n${stringify(made.recipe)}\n`;
  const digest = createHash('sha256').update(toml).digest('hex').slice(0, 12);
  const use: SpecUse = {
    entry: `${entry.repo} ${entry.version}`,
    source: entry.source,
    python: entry.spec.python ?? null,
    applied: made.applied,
    dropped: made.dropped,
    digest,
  };
  return { use, toml };
}

/** The tree the environment is planned from: `base` itself, or its copy with the spec's recipe. */
export function environmentTree(base: string, spec: InstanceSpec | null): string {
  if (!spec) return base;
  const tree = `${base}.spec-${spec.use.digest}`;
  if (existsSync(join(tree, RECIPE_PATH))) return tree;
  const tmp = `${tree}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(base, tmp, { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(tmp, '.piper'), { recursive: true });
  writeFileSync(join(tmp, RECIPE_PATH), spec.toml);
  rmSync(tree, { recursive: true, force: true });
  renameSync(tmp, tree);
  return tree;
}

/** What an instance's digest carries of its environment: the Debian and the spec's recipe. */
export function environmentTag(debian: string | undefined, instance: SweInstance): string {
  const spec = instanceSpec(instance);
  return `${debian ?? 'default'}${spec ? ` spec-${spec.use.digest}` : ''}`;
}
