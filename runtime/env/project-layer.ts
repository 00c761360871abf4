// What the project phase may leave in an environment image (docs/environments.md, "Security
// model"). That phase runs the repository's own code (its build backend, as root, with no network),
// and the image it leaves behind is reused by any later checkout with the same build files — so
// nothing it wrote reaches the image as it is. Its container's changes (the engine's diff of its
// writable layer) are checked against this allowance: the project's own dist-info, `.pth` files,
// setuptools' editable finder and the project's console scripts are read back as data, checked, and
// written by piper into a fresh container that never ran repository code; the workspace, HOME and
// the temporary directories are dropped; anything else fails the build, naming each path.
import { normalize } from './step-output.js';

export interface LayerChange {
  path: string;
  kind: 'changed' | 'added' | 'deleted';
}

export interface LayerCheck {
  /** Paths to read back (a dist-info directory, a .pth, a finder module, a console script). */
  keep: string[];
  /** Changes outside the allowance, as `added /usr/lib/…`. */
  violations: string[];
  /** Compiled modules the build left in the workspace (`/work/…/x.cpython-313-….so`). */
  built: string[];
}

/** Dropped with the build container: the workspace, HOME, temporary files, bytecode piper does not use. */
const DROPPED = [/^\/work(\/|$)/, /^\/root(\/|$)/, /^\/tmp(\/|$)/, /^\/var\/tmp(\/|$)/];

export function checkProjectLayer(
  changes: readonly LayerChange[],
  given: { site: string; bin: string; project: string | null },
): LayerCheck {
  let where = given;
  const keep: string[] = [];
  const violations: string[] = [];
  const built: string[] = [];
  const dists = distInfoNames(changes, where.site);
  if (where.project === null && dists.size === 1) where = { ...where, project: [...dists][0]! };
  const kept = (path: string) => keep.some((k) => path === k || path.startsWith(`${k}/`));
  const sorted = [...changes].sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const change of sorted) {
    const { path, kind } = change;
    if (kind === 'added' && path.startsWith('/work/') && path.endsWith('.so')) built.push(path);
    if (DROPPED.some((re) => re.test(path)) || kept(path)) continue;
    if (kind === 'changed' && isAncestor(path, where)) continue;
    if (kind !== 'deleted' && allowedInSite(path, where)) {
      if (!path.includes('/__pycache__')) keep.push(path);
      continue;
    }
    if (
      kind === 'added' &&
      path.startsWith(`${where.bin}/`) &&
      !path.slice(where.bin.length + 1).includes('/')
    ) {
      keep.push(path);
      continue;
    }
    violations.push(`${kind} ${path}`);
  }
  // A directory that changed only because something below it did is not worth a line of its own.
  const named = violations.filter(
    (v) =>
      !(
        v.startsWith('changed ') &&
        violations.some((w) => w !== v && w.slice(w.indexOf(' ') + 1).startsWith(`${v.slice(8)}/`))
      ),
  );
  return { keep, violations: named, built };
}

/** A directory on the way to what may change (its mtime changes when an entry is added). */
function isAncestor(path: string, where: { site: string; bin: string }): boolean {
  return [where.site, where.bin].some((dir) => dir === path || dir.startsWith(`${path}/`));
}

function allowedInSite(path: string, where: { site: string; project: string | null }): boolean {
  if (!path.startsWith(`${where.site}/`)) return false;
  const rel = path.slice(where.site.length + 1);
  const top = rel.split('/')[0]!;
  if (top === '__pycache__') return true;
  if (top === rel && (top.endsWith('.pth') || /^__editable___[A-Za-z0-9_]+_finder\.py$/.test(top)))
    return true;
  const dist = /^([A-Za-z0-9_.]+)-[^-/]+\.dist-info$/.exec(top);
  return !!dist && where.project !== null && normalize(dist[1]!) === normalize(where.project);
}

/**
 * A project whose name the plan cannot read (setup.py only: never run) installs one dist-info,
 * whatever its name; a second one is not the project's.
 */
function distInfoNames(changes: readonly LayerChange[], site: string): Set<string> {
  const names = new Set<string>();
  for (const { path } of changes) {
    const m = new RegExp(`^${site.replace(/[.]/g, '\\.')}/([A-Za-z0-9_.]+)-[^-/]+\\.dist-info(/|$)`).exec(
      path,
    );
    if (m) names.add(normalize(m[1]!));
  }
  return names;
}
