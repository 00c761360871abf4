// What the project phase's build left, sorted (docs/environments.md, "Security model"). That phase
// runs the repository's own code (its build backend, as root, with no network), so nothing it wrote
// reaches the image as written: the engine's diff of its container is sorted into what piper reads
// back as data (the project's dist-info, `.pth` files, setuptools' finder), the console scripts it
// put in the venv (regenerated from the entry points, never copied), the files it generated in the
// workspace that the snapshot lacks (carried to run time as data), the compiled modules it built
// there, and everything else — left out of the image and named in one line, never failing the
// build. The image holding the result is keyed by the whole snapshot (key.ts), so even what piper
// parsed from one checkout's build never reaches another checkout's runs.
import { normalize } from '../step-output.js';

export interface LayerChange {
  path: string;
  kind: 'changed' | 'added' | 'deleted';
}

export interface LayerSort {
  /** Paths to read back as data: the project's dist-info directory, top-level `.pth` files, setuptools' finders. */
  read: string[];
  /** Names the build added to the venv's bin (kept only as piper regenerates a declared console script). */
  scripts: string[];
  /** Files added in /work that the snapshot lacks (generated-files.ts decides which are carried). */
  generated: string[];
  /** Compiled modules the build left in the workspace (`/work/…/x.cpython-313-….so`). */
  built: string[];
  /** Everything else it wrote, as `added /usr/local/bin/x`: left out of the image. */
  leftOut: string[];
}

/** Gone with the build container, not worth a word: HOME, temporary files, bytecode. */
const SILENT = [/^\/root(\/|$)/, /^\/tmp(\/|$)/, /^\/var\/tmp(\/|$)/, /\/__pycache__(\/|$)/];
const FINDER = /^__editable___[A-Za-z0-9_]+_finder\.py$/;

export function sortProjectLayer(
  changes: readonly LayerChange[],
  given: { site: string; bin: string; project: string | null; inSnapshot: ReadonlySet<string> },
): LayerSort {
  const out: LayerSort = { read: [], scripts: [], generated: [], built: [], leftOut: [] };
  const dists = distInfoNames(changes, given.site);
  const project = given.project ?? (dists.size === 1 ? [...dists][0]! : null);
  const paths = changes.map((c) => c.path);
  const sorted = [...changes].sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const { path, kind } of sorted) {
    if (SILENT.some((re) => re.test(path)) || out.read.some((k) => path.startsWith(`${k}/`))) continue;
    // A directory whose entries changed is not a change of its own.
    if (kind === 'changed' && paths.some((p) => p.startsWith(`${path}/`))) continue;
    if (path === '/work' || path.startsWith('/work/')) {
      if (kind === 'added' && !given.inSnapshot.has(path))
        (path.endsWith('.so') ? out.built : out.generated).push(path);
      continue;
    }
    if (kind !== 'deleted' && path.startsWith(`${given.site}/`)) {
      const top = path.slice(given.site.length + 1);
      if (!top.includes('/') && (top.endsWith('.pth') || FINDER.test(top) || isDistInfo(top, project))) {
        out.read.push(path);
        continue;
      }
    }
    if (
      kind === 'added' &&
      path.startsWith(`${given.bin}/`) &&
      !path.slice(given.bin.length + 1).includes('/')
    ) {
      out.scripts.push(path.slice(given.bin.length + 1));
      continue;
    }
    out.leftOut.push(`${kind} ${path}`);
  }
  return out;
}

function isDistInfo(top: string, project: string | null): boolean {
  const dist = /^([A-Za-z0-9_.]+)-[^-/]+\.dist-info$/.exec(top);
  return !!dist && project !== null && normalize(dist[1]!) === normalize(project);
}

/**
 * A project whose name the plan cannot read (setup.py only: never run) installs one dist-info,
 * whatever its name; a second one is not the project's.
 */
function distInfoNames(changes: readonly LayerChange[], site: string): Set<string> {
  const names = new Set<string>();
  for (const { path } of changes) {
    if (!path.startsWith(`${site}/`)) continue;
    const m = /^([A-Za-z0-9_.]+)-[^-/]+\.dist-info$/.exec(path.slice(site.length + 1));
    if (m) names.add(normalize(m[1]!));
  }
  return names;
}
