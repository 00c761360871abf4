// pdm.lock: [[package]] tables (name, version, `groups`, `marker` with the inherit_metadata
// strategy, `dependencies` as PEP 508 lines, `files` with their hashes; `git`, `path`, `url` or
// `editable` for sources not on an index). A package locked with extras is an entry of its own at
// the same version: its dependencies join the package's. No root is named: the walk starts at the
// plan's requirements and the packages nothing depends on (graph.ts), in the groups a test run
// needs.
import { isTable, type TomlTable } from '../../read/toml.js';
import { normalizeName } from '../../read/normalize.js';
import type { SandboxPython } from '../../read/marker-env.js';
import { parseRequirement } from '../../read/pep508.js';
import { renderMarker } from '../../read/marker.js';
import { forTests, sha256Of, Unusable, type Closure, type LockEdge, type LockNode } from './closure.js';
import { walkFromRoots } from './graph.js';

const NOT_AN_INDEX = ['git', 'path', 'url', 'editable'];

function edgeOf(line: string): LockEdge {
  try {
    const r = parseRequirement(line);
    return { name: r.name, extras: r.extras, ...(r.marker ? { marker: renderMarker(r.marker) } : {}) };
  } catch {
    throw new Unusable(`dependency "${line.slice(0, 80)}" not understood`);
  }
}

function hashesOf(files: unknown): string[] {
  return (Array.isArray(files) ? files : []).flatMap((f) =>
    isTable(f) && sha256Of(f.hash) ? [sha256Of(f.hash)!] : [],
  );
}

export function pdmClosure(root: TomlTable, python: SandboxPython, required: Set<string>): Closure {
  const entries = (Array.isArray(root.package) ? root.package : []).filter(
    (e): e is TomlTable => isTable(e) && typeof e.name === 'string' && typeof e.version === 'string',
  );
  const byKey = new Map<string, LockNode>();
  for (const e of entries) {
    const groups = Array.isArray(e.groups) ? e.groups.map(String) : [];
    if (groups.length && !groups.some(forTests)) continue;
    const key = `${normalizeName(String(e.name))} ${String(e.version)}`;
    const node: LockNode = byKey.get(key) ?? {
      name: normalizeName(String(e.name)),
      version: String(e.version),
      hashes: [],
      deps: [],
      extras: new Map(),
      ...(typeof e.marker === 'string' ? { marker: e.marker } : {}),
    };
    node.hashes.push(...hashesOf(e.files));
    node.deps.push(...(Array.isArray(e.dependencies) ? e.dependencies.map((d) => edgeOf(String(d))) : []));
    const other = NOT_AN_INDEX.find((k) => k in e);
    if (other) node.source = `a ${other} source`;
    byKey.set(key, node);
  }
  return walkFromRoots([...byKey.values()], required, new Set(), python, byKey.size);
}
