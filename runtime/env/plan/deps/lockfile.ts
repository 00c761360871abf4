// Lockfiles: uv.lock, poetry.lock, pdm.lock and pylock.toml (PEP 751), all TOML with a list of
// packages, each a name and a version; and requirements files hashed throughout (pip-compile's).
// The first TOML one present is read, else the hashed requirements files. Its closure for the
// sandbox's Python (locks/: the packages whose markers hold, from the project's roots) is what
// the build installs, `--no-deps --require-hashes`, when every package in it has a hash and comes
// from an index. Either way, its version of each distribution the plan already requires narrows
// that requirement to `==version`, like a constraint: what the plan requires beyond the lock is
// still installed, by pip's resolution. A distribution locked at more than one version (a fork by
// marker), or at one its specifier excludes, is left as it is, and the sentence says how many.
// Build requirements only [build-system].requires names are not pinned: a lockfile does not lock
// the build.
import { satisfies } from '@renovatebot/pep440';
import { normalizeName } from '../read/normalize.js';
import { boundedVersion } from '../read/version-bounds.js';
import type { Planner } from '../planner.js';
import type { RepoReader } from '../read/repo-reader.js';
import type { SandboxPython } from '../read/marker-env.js';
import { isTable, type TomlTable } from '../read/toml.js';
import type { LockedClosure } from '../types.js';
import type { Closure } from './locks/closure.js';
import { hashedFilesClosure, tomlClosure } from './locks/locked-closure.js';
import { parse } from 'smol-toml';

const LOCKFILES = ['uv.lock', 'poetry.lock', 'pdm.lock', 'pylock.toml'];
/** Recorded (their bytes enter the cache key) but not read: not TOML. */
const UNREAD_LOCKFILES = ['Pipfile.lock'];

function lockedVersions(root: TomlTable): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const packages = [root.package, root.packages].find(Array.isArray) ?? [];
  for (const entry of packages as unknown[]) {
    if (!isTable(entry) || typeof entry.name !== 'string' || typeof entry.version !== 'string') continue;
    // A version too long to compare (version-bounds.ts) locks nothing.
    if (!boundedVersion(entry.version)) continue;
    const key = normalizeName(entry.name);
    out.set(key, (out.get(key) ?? new Set()).add(entry.version));
  }
  return out;
}

/** The plan's requirements a lockfile may pin: not those only [build-system].requires names. */
function lockable(planner: Planner) {
  return planner.set.views().filter((view) => !(view.kinds.size === 1 && view.kinds.has('build')));
}

/** The closure as the plan's `locked`, or the sentence of why the lockfile only narrows. */
function lockedOf(from: string, closure: Closure, python: SandboxPython, decisions: string[]) {
  if ('unusable' in closure) {
    decisions.push(
      `${from}: not installed as locked (${closure.unusable}); pip resolves the requirements, narrowed to the locked versions`,
    );
    return undefined;
  }
  if (!closure.packages.length) return undefined;
  const left = closure.left
    ? `; ${closure.left} locked package(s) left out (markers for Python ${python}, groups, extras)`
    : '';
  decisions.push(
    `${from}: ${closure.packages.length} locked package(s) for Python ${python} installed as locked (--no-deps --require-hashes)${left}`,
  );
  return { from, packages: closure.packages };
}

/**
 * `pin` false (detection off): the lockfiles' bytes are recorded, nothing is pinned or installed
 * from them. Returns the locked closure the build installs, if any.
 */
export function applyLockfile(
  planner: Planner,
  reader: RepoReader,
  python: SandboxPython,
  pin = true,
): LockedClosure | undefined {
  for (const file of UNREAD_LOCKFILES)
    if (reader.read(file, 'lockfile'))
      planner.decisions.push(`${file}: not read (JSON); its bytes enter the cache key`);
  const present = LOCKFILES.filter((file) => reader.isFile(file));
  if (!pin) {
    for (const file of present) reader.read(file, 'lockfile');
    return undefined;
  }
  const [file, ...others] = present;
  for (const other of others) {
    reader.read(other, 'lockfile');
    planner.decisions.push(`${other}: not read (${file} comes first); its bytes enter the cache key`);
  }
  if (file === undefined) {
    const hashed = hashedFilesClosure(reader, python);
    return hashed ? lockedOf(hashed.files.join(', '), hashed.closure, python, planner.decisions) : undefined;
  }
  let root: TomlTable;
  try {
    root = parse(reader.readText(file, 'lockfile') ?? '') as TomlTable;
  } catch (error) {
    const problem = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    planner.decisions.push(`${file}: not valid TOML (${problem}): no version pinned`);
    return undefined;
  }
  narrow(planner, file, lockedVersions(root));
  const required = new Set(lockable(planner).map((v) => v.normalized));
  return lockedOf(file, tomlClosure(file, root, python, required), python, planner.decisions);
}

function narrow(planner: Planner, file: string, locked: Map<string, Set<string>>): void {
  let pinned = 0;
  let forked = 0;
  let outside = 0;
  const views = lockable(planner);
  for (const view of views) {
    const versions = [...(locked.get(view.normalized) ?? [])];
    if (versions.length === 0) continue;
    if (versions.length > 1) {
      forked++;
      continue;
    }
    const version = versions[0] as string;
    const specifier = planner.set.specifierOf(view.name);
    if (specifier !== '' && !satisfies(version, specifier)) {
      outside++;
      continue;
    }
    planner.set.pin(view.name, version, file);
    pinned++;
  }
  const notes = [
    forked ? `${forked} locked at more than one version` : '',
    outside ? `${outside} locked outside the specifier asked for` : '',
  ].filter((n) => n !== '');
  planner.decisions.push(
    `${file}: ${pinned} of ${views.length} requirement(s) pinned to their locked version${notes.length ? ` (not pinned: ${notes.join(', ')})` : ''}; build requirements not pinned, nothing added from it`,
  );
}
