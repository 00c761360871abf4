// poetry.lock: [[package]] tables (name, version, `optional`, `files` with their hashes or, before
// lock version 2, [metadata.files]; a [package.source] for git, directory, file and URL sources)
// and each one's [package.dependencies]. Since lock version 2.1 each package names its `groups`
// and, when it is not always installed, its `markers` (a string, or one per group): the closure is
// then every package of a group a test run needs whose marker holds, as Poetry installs it. Older
// locks (a `category` at most) are walked from the roots (graph.ts) through the dependencies'
// markers.
import { isTable, type TomlTable } from '../../read/toml.js';
import { normalizeName } from '../../read/normalize.js';
import type { SandboxPython } from '../../read/marker-env.js';
import {
  forTests,
  lockedPackages,
  markerHolds,
  sha256Of,
  type Closure,
  type LockEdge,
  type LockNode,
} from './closure.js';
import { walkFromRoots } from './graph.js';

function strings(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
}

function edgesOf(deps: unknown): LockEdge[] {
  if (!isTable(deps)) return [];
  return Object.entries(deps).flatMap(([name, spec]) =>
    (Array.isArray(spec) ? spec : [spec]).flatMap((one) => {
      if (!isTable(one)) return [{ name, extras: [] }];
      if (one.optional === true) return [];
      return [
        {
          name,
          extras: strings(one.extras),
          ...(typeof one.markers === 'string' ? { marker: one.markers } : {}),
        },
      ];
    }),
  );
}

function extrasOf(extras: unknown): Map<string, LockEdge[]> {
  const out = new Map<string, LockEdge[]>();
  if (isTable(extras))
    for (const [extra, list] of Object.entries(extras))
      out.set(
        normalizeName(extra),
        strings(list).flatMap((text) => {
          const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(text)?.[1];
          return name ? [{ name, extras: [] }] : [];
        }),
      );
  return out;
}

/** The package's marker for the groups a test run installs (lock 2.1), '' when always. */
function markerOf(entry: TomlTable, groups: string[]): string | undefined {
  if (typeof entry.markers === 'string') return entry.markers;
  if (!isTable(entry.markers)) return undefined;
  const wanted = groups.filter(forTests);
  const each = wanted.map((g) => entry.markers && (entry.markers as TomlTable)[g]);
  if (each.some((m) => typeof m !== 'string')) return undefined;
  return each.map((m) => `(${String(m)})`).join(' or ');
}

function nodeOf(entry: TomlTable, files: unknown): LockNode {
  const source =
    isTable(entry.source) && typeof entry.source.type === 'string' ? entry.source.type : 'legacy';
  const hashes = (Array.isArray(files) ? files : []).flatMap((f) =>
    isTable(f) && sha256Of(f.hash) ? [sha256Of(f.hash)!] : [],
  );
  const node: LockNode = {
    name: normalizeName(String(entry.name)),
    version: String(entry.version),
    hashes,
    deps: edgesOf(entry.dependencies),
    extras: extrasOf(entry.extras),
  };
  if (!['legacy', 'pypi'].includes(source)) node.source = `a ${source} source`;
  return node;
}

export function poetryClosure(root: TomlTable, python: SandboxPython, required: Set<string>): Closure {
  const entries = (Array.isArray(root.package) ? root.package : []).filter(
    (e): e is TomlTable => isTable(e) && typeof e.name === 'string' && typeof e.version === 'string',
  );
  const metaFiles = isTable(root.metadata) && isTable(root.metadata.files) ? root.metadata.files : {};
  const nodeFor = (e: TomlTable) =>
    nodeOf(e, e.files ?? metaFiles[String(e.name)] ?? metaFiles[normalizeName(String(e.name))]);
  if (entries.some((e) => Array.isArray(e.groups))) {
    const chosen = entries.filter(
      (e) => strings(e.groups).some(forTests) && markerHolds(markerOf(e, strings(e.groups)), python),
    );
    return lockedPackages(chosen.map(nodeFor), entries.length);
  }
  const wanted = entries.filter((e) => typeof e.category !== 'string' || forTests(e.category));
  const optional = new Set(
    wanted.filter((e) => e.optional === true).map((e) => normalizeName(String(e.name))),
  );
  return walkFromRoots(wanted.map(nodeFor), required, optional, python, entries.length);
}
