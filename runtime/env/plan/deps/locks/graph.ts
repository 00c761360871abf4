// The walk of a lockfile that names no root (poetry.lock before lock version 2.1, pdm.lock): its
// packages are the project's whole resolution, and the project's own requirements are not in it.
// The roots are what the plan requires that the lockfile holds, and every package nothing else in
// the lockfile depends on (a direct requirement the plan did not read, e.g. a group it skipped as
// tooling) unless it is optional (only an extra brings it in).
import type { SandboxPython } from '../../read/marker-env.js';
import { normalizeName } from '../../read/normalize.js';
import { walkClosure, type Closure, type LockEdge, type LockNode } from './closure.js';

export function walkFromRoots(
  nodes: LockNode[],
  required: Set<string>,
  optional: Set<string>,
  python: SandboxPython,
  total: number,
): Closure {
  const depended = new Set(
    nodes.flatMap((n) => [...n.deps, ...[...n.extras.values()].flat()].map((e) => normalizeName(e.name))),
  );
  const roots: LockEdge[] = nodes
    .filter((n) => required.has(n.name) || (!depended.has(n.name) && !optional.has(n.name)))
    .map((n) => ({ name: n.name, version: n.version, extras: [] }));
  const closure = walkClosure(nodes, roots, python);
  return 'packages' in closure ? { ...closure, left: Math.max(0, total - closure.packages.length) } : closure;
}
