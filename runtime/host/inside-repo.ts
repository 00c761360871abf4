// Nothing is read or packed whose real location is outside the repository (docs/sandbox.md, "The
// host side of the boundary"): a repository can replace `vendor/` with a symbolic link to any
// directory on the host, and git still lists the files it tracked there. Every reader of a
// repository path asks here first.
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { readRegularFile, type ReadRefusal } from './open-regular.js';

/** Whether `path` (absolute) is `root` itself or lies below it. */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The real path of the repository file `rel` when it lies inside `realRoot` (the root with its
 * own symbolic links resolved), else null: a path through a link that leaves the repository, a
 * `../` or absolute path, or a path that does not exist.
 */
export function insideRepo(realRoot: string, rel: string): string | null {
  if (isAbsolute(rel) || rel.split(/[/\\]/).includes('..')) return null;
  try {
    const real = realpathSync.native(join(realRoot, rel));
    return isWithin(realRoot, real) && real !== realRoot ? real : null;
  } catch {
    return null;
  }
}

/**
 * The real directories of one repository, each resolved once: checking 100,000 files costs one
 * realpath per directory, not per file. For a path whose last part is not itself a link (lstat
 * said so), its real path is its parent's real path plus its name.
 */
export class RealDirs {
  private readonly cache = new Map<string, string | null>();
  constructor(readonly realRoot: string) {}

  /** The real path of the directory holding `rel`, or null when it cannot be resolved. */
  parentOf(rel: string): string | null {
    const dir = dirname(rel);
    if (dir === '.' || dir === '') return this.realRoot;
    let real = this.cache.get(dir);
    if (real === undefined) {
      try {
        real = realpathSync.native(join(this.realRoot, dir));
      } catch {
        real = null;
      }
      this.cache.set(dir, real);
    }
    return real;
  }

  /** True when the directory holding `rel` is inside the repository and reached through no link. */
  parentIsPlain(rel: string): boolean {
    const dir = dirname(rel);
    return this.parentOf(rel) === (dir === '.' || dir === '' ? this.realRoot : join(this.realRoot, dir));
  }

  /** True when the directory holding `rel` is inside the repository, links or not. */
  parentIsInside(rel: string): boolean {
    const real = this.parentOf(rel);
    return real !== null && isWithin(this.realRoot, real);
  }
}

/**
 * How much of each kind of repository file the host reads (docs/security.md, "What the host reads
 * from a repository"): a declaration (pyproject.toml, requirements, setup.cfg, tox.ini, a lock file,
 * the recipe) or a config file is text a person writes; a source file is what the index and the
 * planner's import scan read; a wheel is hashed whole.
 */
export const REPO_READ_LIMITS = {
  declaration: 4 * 1024 * 1024,
  config: 1024 * 1024,
  source: 8 * 1024 * 1024,
  wheel: 512 * 1024 * 1024,
  any: 64 * 1024 * 1024,
} as const;

export type RepoFileKind = keyof typeof REPO_READ_LIMITS;

const WHAT: Record<RepoFileKind, string> = {
  declaration: 'a declaration file',
  config: 'a configuration file',
  source: 'a source file',
  wheel: 'a wheel',
  any: 'a repository file',
};

/**
 * The one way the host reads a file a repository brings: the bytes of repository file `rel`, read
 * only when its real path is inside `realRoot` and it is a regular file (opened without following a
 * final link or blocking, and checked again through the opened descriptor), refused before reading
 * past the limit of its kind; otherwise why not.
 */
export function readRepoFile(
  realRoot: string,
  rel: string,
  kind: RepoFileKind = 'any',
): Buffer | ReadRefusal {
  const real = insideRepo(realRoot, rel);
  if (real === null) {
    const exists = existsSync(join(realRoot, rel)) || isBrokenLink(join(realRoot, rel));
    return exists
      ? { error: `${rel} lies outside the repository`, kind: 'outside' }
      : { error: `${rel}: no such file`, kind: 'missing' };
  }
  // Where the opened descriptor really is, checked again: a directory swapped for a link between the
  // realpath and the open is caught.
  return readRegularFile(real, {
    limit: REPO_READ_LIMITS[kind],
    name: rel,
    what: WHAT[kind],
    within: (where) => isWithin(realRoot, where),
  });
}

function isBrokenLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
