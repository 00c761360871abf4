// uv.lock: [[package]] tables, each with its `source` (registry, editable, virtual, git, path...),
// its `dependencies` (name, and version or marker when needed), its optional and dev dependency
// tables, and the sha256 of each wheel and of its sdist. The roots are the project's own packages
// (an editable or virtual source: the project and its workspace members, installed from the
// checkout, not from the lock); the walk follows their dependencies and their dev groups and
// extras a test run needs (closure.ts forTests).
import { isTable, type TomlTable } from '../../read/toml.js';
import { normalizeName } from '../../read/normalize.js';
import type { SandboxPython } from '../../read/marker-env.js';
import { forTests, sha256Of, walkClosure, type Closure, type LockEdge, type LockNode } from './closure.js';

function edges(list: unknown): LockEdge[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isTable).flatMap((d) =>
    typeof d.name === 'string'
      ? [
          {
            name: d.name,
            ...(typeof d.version === 'string' ? { version: d.version } : {}),
            ...(typeof d.marker === 'string' ? { marker: d.marker } : {}),
            extras: Array.isArray(d.extra) ? d.extra.filter((x): x is string => typeof x === 'string') : [],
          },
        ]
      : [],
  );
}

function groups(table: unknown, wanted: (name: string) => boolean): Map<string, LockEdge[]> {
  const out = new Map<string, LockEdge[]>();
  if (isTable(table))
    for (const [name, list] of Object.entries(table))
      if (wanted(name)) out.set(normalizeName(name), edges(list));
  return out;
}

function sourceOf(source: unknown): string | undefined {
  if (!isTable(source) || 'registry' in source) return undefined;
  const kind = Object.keys(source)[0];
  return kind ? `a ${kind} source` : undefined;
}

function hashesOf(entry: TomlTable): string[] {
  const files = [...(Array.isArray(entry.wheels) ? entry.wheels : []), entry.sdist];
  return files.flatMap((f) => (isTable(f) && sha256Of(f.hash) ? [sha256Of(f.hash)!] : []));
}

function isRoot(entry: TomlTable): boolean {
  return isTable(entry.source) && ('editable' in entry.source || 'virtual' in entry.source);
}

export function uvClosure(root: TomlTable, python: SandboxPython): Closure {
  const entries = (Array.isArray(root.package) ? root.package : []).filter(isTable);
  const nodes: LockNode[] = [];
  const roots: LockEdge[] = [];
  const own = new Set<LockNode>();
  for (const entry of entries) {
    // The project's own package has no version when its version is dynamic; any other without
    // one cannot be pinned (lockedPackages says so if the walk reaches it).
    if (typeof entry.name !== 'string') continue;
    const markers = Array.isArray(entry['resolution-markers']) ? entry['resolution-markers'] : [];
    const node: LockNode = {
      name: normalizeName(entry.name),
      version: typeof entry.version === 'string' ? entry.version : '',
      hashes: hashesOf(entry),
      ...(markers.length ? { marker: markers.map((m) => `(${String(m)})`).join(' or ') } : {}),
      deps: edges(entry.dependencies),
      extras: groups(entry['optional-dependencies'], () => true),
      ...(isRoot(entry) ? {} : { source: sourceOf(entry.source) }),
    };
    if (node.source === undefined) delete node.source;
    nodes.push(node);
    if (!isRoot(entry)) continue;
    own.add(node);
    roots.push(...node.deps, ...[...groups(entry['dev-dependencies'], forTests).values()].flat());
    roots.push(...[...groups(entry['optional-dependencies'], forTests).values()].flat());
  }
  if (!entries.length) return { packages: [], left: 0 };
  if (!own.size) return { unusable: 'no package of the project itself (editable or virtual source) in it' };
  return walkClosure(nodes, roots, python, own);
}
