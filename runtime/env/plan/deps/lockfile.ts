// Lockfiles: uv.lock, poetry.lock, pdm.lock and pylock.toml (PEP 751), all TOML with a list of
// packages, each a name and a version. The first one present is read; its version of each
// distribution the plan already requires narrows that requirement to `==version`, like a
// constraint: a lockfile never adds a distribution (it holds every platform's and every extra's
// transitive packages). A distribution locked at more than one version (a fork by marker), or at
// one its specifier excludes, is left as it is, and the sentence says how many. Build requirements
// only [build-system].requires names are not pinned: a lockfile does not lock the build.
import { satisfies } from '@renovatebot/pep440';
import { normalizeName } from '../read/normalize.js';
import { boundedVersion } from '../read/version-bounds.js';
import type { Planner } from '../planner.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isTable } from '../read/toml.js';
import { parse } from 'smol-toml';

const LOCKFILES = ['uv.lock', 'poetry.lock', 'pdm.lock', 'pylock.toml'];
/** Recorded (their bytes enter the cache key) but not read: not TOML. */
const UNREAD_LOCKFILES = ['Pipfile.lock'];

function lockedVersions(text: string): Map<string, Set<string>> {
  const root = parse(text);
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

/** `pin` false (detection off): the lockfiles' bytes are recorded, nothing is pinned. */
export function applyLockfile(planner: Planner, reader: RepoReader, pin = true): void {
  for (const file of UNREAD_LOCKFILES)
    if (reader.read(file, 'lockfile'))
      planner.decisions.push(`${file}: not read (JSON); its bytes enter the cache key`);
  const present = LOCKFILES.filter((file) => reader.isFile(file));
  if (!pin) {
    for (const file of present) reader.read(file, 'lockfile');
    return;
  }
  const [file, ...others] = present;
  for (const other of others) {
    reader.read(other, 'lockfile');
    planner.decisions.push(`${other}: not read (${file} comes first); its bytes enter the cache key`);
  }
  if (file === undefined) return;
  let locked: Map<string, Set<string>>;
  try {
    locked = lockedVersions(reader.readText(file, 'lockfile') ?? '');
  } catch (error) {
    const problem = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    planner.decisions.push(`${file}: not valid TOML (${problem}): no version pinned`);
    return;
  }
  let pinned = 0;
  let forked = 0;
  let outside = 0;
  // A lockfile locks what the project and its tests use, not [build-system].requires (built apart).
  const views = planner.set.views().filter((view) => !(view.kinds.size === 1 && view.kinds.has('build')));
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
