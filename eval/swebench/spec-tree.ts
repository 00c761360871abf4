// Where an instance's environment is planned from. Without a harness spec entry: its base tree. With
// one: a copy of the base tree beside it holding the entry's recipe as `.piper/sandbox.toml`, so the
// spec goes through the one recipe path every project's does (untrusted: no setup command, no index
// URL), while the base tree the agent works in and is graded from stays the repository's own. The
// copy is made once per commit and recipe (its name carries the digest of the recipe it holds).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { RECIPE_PATH } from '../../runtime/env/plan/recipe.js';
import { pythonOf } from './debian.js';
import type { DebianRelease } from '../../runtime/env/plan/read/marker-env.js';
import { specEntry, type SpecEntry } from './harness-spec.js';
import type { SweInstance } from './instance-file.js';
import { keepDeclaredExtras } from './spec-extras.js';
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
  entry: SpecEntry;
  made: SpecRecipe;
  use: SpecUse;
}

function useOf(entry: SpecEntry, made: SpecRecipe, digest: string): SpecUse {
  return {
    entry: `${entry.repo} ${entry.version}`,
    source: entry.source,
    python: entry.spec.python ?? null,
    applied: made.applied,
    dropped: made.dropped,
    digest,
  };
}

function tomlOf(entry: SpecEntry, made: SpecRecipe): string {
  return `# The SWE-bench harness's spec ${entry.repo} ${entry.version} (${entry.source})\n${stringify(made.recipe)}\n`;
}

/** The instance's spec for a sandbox on `debian` (null: no entry). */
export function instanceSpec(instance: SweInstance, debian: DebianRelease | undefined): InstanceSpec | null {
  const entry = specEntry(instance);
  if (!entry) return null;
  const made = specRecipe(entry.spec, pythonOf(debian));
  const digest = createHash('sha256').update(tomlOf(entry, made)).digest('hex').slice(0, 12);
  return { entry, made, use: useOf(entry, made, digest) };
}

/** The tree the environment is planned from (`base` itself, or its copy with the spec's recipe) and the spec as used. */
export function environmentTree(
  base: string,
  spec: InstanceSpec | null,
): { tree: string; use: SpecUse | null } {
  if (!spec) return { tree: base, use: null };
  const made = keepDeclaredExtras(spec.made, base);
  const use = useOf(spec.entry, made, spec.use.digest);
  const toml = tomlOf(spec.entry, made);
  // Named by what it holds: the recipe as written, after the extras the commit declares.
  const tree = `${base}.spec-${createHash('sha256').update(toml).digest('hex').slice(0, 12)}`;
  if (existsSync(join(tree, RECIPE_PATH))) return { tree, use };
  const tmp = `${tree}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(base, tmp, { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(tmp, '.piper'), { recursive: true });
  writeFileSync(join(tmp, RECIPE_PATH), toml);
  rmSync(tree, { recursive: true, force: true });
  renameSync(tmp, tree);
  return { tree, use };
}

/** What an instance's digest carries of its environment: the Debian and the spec's recipe. */
export function environmentTag(debian: DebianRelease | undefined, instance: SweInstance): string {
  const spec = instanceSpec(instance, debian);
  return `${debian ?? 'default'}${spec ? ` spec-${spec.use.digest}` : ''}`;
}
