// The locked closure of a lockfile: the packages the sandbox installs, each at its locked version
// with the sha256 hashes the lockfile recorded. Each format is read into nodes and edges
// (uv-lock.ts, poetry-lock.ts, pdm-lock.ts, pylock.ts); the walk from the roots keeps an edge only
// when its marker holds for the sandbox's Python, so a Windows-only or older-Python dependency
// is not installed. A closure pip cannot install with --require-hashes (a package without hashes,
// a VCS or path source, a marker not understood) is `unusable`, with the reason: the planner then
// only narrows the plan's requirements (lockfile.ts).
import { evaluateMarker } from '../../read/marker.js';
import { markerEnvironment, type SandboxPython } from '../../read/marker-env.js';
import { normalizeName } from '../../read/normalize.js';
import { parseMarker } from '../../read/pep508.js';

interface LockedPackage {
  name: string;
  version: string;
  /** Hex sha256 digests, any of which pip accepts (a wheel per platform, the sdist). */
  hashes: string[];
}

export type Closure = { packages: LockedPackage[]; left: number } | { unusable: string };

export interface LockEdge {
  name: string;
  /** uv names the version when a package is locked at more than one. */
  version?: string;
  marker?: string;
  extras: string[];
}

export interface LockNode {
  name: string;
  version: string;
  hashes: string[];
  /** When the package is installed at all (poetry 2, pdm, pylock), or which fork it is (uv's resolution-markers). */
  marker?: string;
  deps: LockEdge[];
  /** Extra → its edges (an edge asking `name[extra]` follows them too). */
  extras: Map<string, LockEdge[]>;
  /** Why pip cannot install it from an index by hash (a VCS, path or URL source). */
  source?: string;
}

/** Thrown while reading or walking: the closure is unusable, for this reason. */
export class Unusable extends Error {}

// Names and versions go into a pip requirements file, hashes after --hash: nothing else may.
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.+!_-]{0,63}$/;
const SHA256 = /^(?:sha256[:=])?([0-9a-f]{64})$/;

/** A `sha256:HEX` (or `sha256=HEX`, or bare) digest as hex; other algorithms give null. */
export function sha256Of(text: unknown): string | null {
  return typeof text === 'string' ? (SHA256.exec(text.trim().toLowerCase())?.[1] ?? null) : null;
}

/** Whether `marker` holds for the sandbox's Python; a marker the parser rejects makes the closure unusable. */
export function markerHolds(marker: string | undefined, python: SandboxPython): boolean {
  if (marker === undefined || marker.trim() === '') return true;
  try {
    return evaluateMarker(parseMarker(marker), markerEnvironment(python));
  } catch {
    throw new Unusable(`marker "${marker.slice(0, 80)}" not understood`);
  }
}

function pick(nodes: LockNode[], edge: LockEdge, python: SandboxPython): LockNode | undefined {
  const named = nodes.filter(
    (n) => n.name === normalizeName(edge.name) && (edge.version === undefined || n.version === edge.version),
  );
  return named.length > 1 ? named.find((n) => markerHolds(n.marker, python)) : named[0];
}

/**
 * Every node reached from `roots` through edges whose markers hold (an edge's extras follow the
 * target's extra edges), less the nodes whose own marker does not hold. `skip`: the roots' own
 * nodes (the project itself), not installed from the lock.
 */
export function walkClosure(
  nodes: LockNode[],
  roots: LockEdge[],
  python: SandboxPython,
  skip: Set<LockNode> = new Set(),
): Closure {
  const seen = new Set<LockNode>(skip);
  const out: LockNode[] = [];
  const queue = roots.filter((e) => markerHolds(e.marker, python));
  for (let edge = queue.shift(); edge; edge = queue.shift()) {
    const node = pick(nodes, edge, python);
    if (!node) continue;
    const followed = [
      ...(seen.has(node) ? [] : node.deps),
      ...edge.extras.flatMap((x) => node.extras.get(normalizeName(x)) ?? []),
    ];
    if (!seen.has(node)) {
      seen.add(node);
      if (markerHolds(node.marker, python)) out.push(node);
    }
    queue.push(...followed.filter((e) => markerHolds(e.marker, python)));
  }
  return lockedPackages(out, nodes.length - skip.size);
}

/** The nodes as pip's lines: each one checked to have a name, a version, hashes and an index source. */
export function lockedPackages(nodes: LockNode[], total: number): Closure {
  const byName = new Map<string, LockNode>();
  for (const node of nodes) {
    if (node.source) return { unusable: `${node.name} comes from ${node.source}` };
    if (!NAME.test(node.name) || !VERSION.test(node.version))
      return { unusable: `${node.name} ${node.version}: not a plain name and version` };
    if (!node.hashes.length) return { unusable: `no sha256 hash for ${node.name} ${node.version}` };
    const other = byName.get(node.name);
    if (other && other.version !== node.version)
      return { unusable: `${node.name} locked at ${other.version} and ${node.version} for this Python` };
    byName.set(node.name, node);
  }
  const packages = [...byName.values()]
    .map((n) => ({ name: n.name, version: n.version, hashes: [...new Set(n.hashes)].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { packages, left: Math.max(0, total - packages.length) };
}

/** Dependency groups and extras a test run needs: the default ones and any named for tests or development. */
export function forTests(group: string): boolean {
  return /^(main|default)$|test|dev/i.test(group);
}
