// pylock.toml (PEP 751): a flat [[packages]] list, each with its `marker` (when it is installed
// at all), `wheels` and `sdist` with `hashes` tables, or a `vcs`, `directory` or `archive` source.
// An installer takes every package whose marker holds. The marker may ask `'NAME' in extras` or
// `'NAME' in dependency_groups` (PEP 751's own variables): a group or extra a test run needs, or
// one of the lock's `default-groups`, holds; any other does not.
import { isTable, type TomlTable } from '../../read/toml.js';
import { normalizeName } from '../../read/normalize.js';
import type { SandboxPython } from '../../read/marker-env.js';
import { forTests, lockedPackages, markerHolds, sha256Of, type Closure, type LockNode } from './closure.js';

const SELECTION = /(["'])([^"']*)\1\s+(not\s+in|in)\s+(extras|dependency_groups)\b/g;

/** PEP 751's `in extras` / `in dependency_groups` comparisons made plain ones the marker code knows. */
function selected(marker: string, defaults: Set<string>): string {
  return marker.replace(SELECTION, (_all, _q, name: string, op: string) => {
    const holds = forTests(name) || defaults.has(normalizeName(name));
    return op === 'in' ? (holds ? '"a" == "a"' : '"a" == "b"') : holds ? '"a" == "b"' : '"a" == "a"';
  });
}

function hashesOf(entry: TomlTable): string[] {
  const files = [...(Array.isArray(entry.wheels) ? entry.wheels : []), entry.sdist];
  return files.flatMap((f) =>
    isTable(f) && isTable(f.hashes) && sha256Of(f.hashes.sha256) ? [sha256Of(f.hashes.sha256)!] : [],
  );
}

export function pylockClosure(root: TomlTable, python: SandboxPython): Closure {
  const entries = (Array.isArray(root.packages) ? root.packages : []).filter(isTable);
  const defaults = new Set(
    (Array.isArray(root['default-groups']) ? root['default-groups'] : []).map((g) =>
      normalizeName(String(g)),
    ),
  );
  const nodes: LockNode[] = [];
  for (const e of entries) {
    if (typeof e.name !== 'string') continue;
    if (typeof e.marker === 'string' && !markerHolds(selected(e.marker, defaults), python)) continue;
    const node: LockNode = {
      name: normalizeName(e.name),
      version: typeof e.version === 'string' ? e.version : '',
      hashes: hashesOf(e),
      deps: [],
      extras: new Map(),
    };
    const other = ['vcs', 'directory', 'archive'].find((k) => k in e);
    if (other) node.source = `a ${other} source`;
    nodes.push(node);
  }
  return lockedPackages(nodes, entries.length);
}
