// A requirements file with every requirement pinned and hashed (`pip-compile --generate-hashes`,
// `uv pip compile --generate-hashes`) is a lockfile: its lines are the whole resolution, each
// `name==version` with its `--hash=sha256:` options and a marker where it is conditional. Only a
// file whose every requirement carries a hash is one (a stray hash on one line makes a plain
// requirements file); a line pip could not check by hash (a path, a URL, an editable) makes the
// closure unusable.
import type { SandboxPython } from '../../read/marker-env.js';
import { normalizeName } from '../../read/normalize.js';
import { parseRequirement } from '../../read/pep508.js';
import { renderMarker } from '../../read/marker.js';
import { lockedPackages, markerHolds, sha256Of, type Closure, type LockNode } from './closure.js';

const HASH = /\s--hash[=\s]\s*(\S+)/g;

/** The file's logical lines: continuations joined, comments dropped. */
function logicalLines(text: string): string[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** Whether the file's every requirement line has a hash (and it has at least one). */
export function isHashedRequirements(text: string): boolean {
  const requirements = logicalLines(text).filter((l) => !l.startsWith('-') || /^-e\s|^--editable/.test(l));
  return requirements.length > 0 && requirements.every((l) => /\s--hash[=\s]/.test(` ${l}`));
}

function nodeOf(line: string): LockNode {
  const hashes = [...` ${line}`.matchAll(HASH)].flatMap((m) => (sha256Of(m[1]) ? [sha256Of(m[1])!] : []));
  const text = ` ${line}`.replace(HASH, '').trim();
  if (/^-e\s|^--editable/.test(text))
    return { name: text, version: '', hashes, deps: [], extras: new Map(), source: 'an editable line' };
  const r = parseRequirement(text);
  const pin = r.specifiers.length === 1 && r.specifiers[0]?.op === '==' ? r.specifiers[0].version : '';
  const node: LockNode = { name: normalizeName(r.name), version: pin, hashes, deps: [], extras: new Map() };
  if (r.marker) node.marker = renderMarker(r.marker);
  if (r.url) node.source = 'a URL';
  else if (!pin)
    node.source = `no == pin (${r.specifiers.map((s) => s.op + s.version).join(',') || 'unpinned'})`;
  return node;
}

export function hashedRequirementsClosure(text: string, python: SandboxPython): Closure {
  const nodes = logicalLines(text)
    .filter((l) => !l.startsWith('-') || /^-e\s|^--editable/.test(l))
    .map(nodeOf);
  return lockedPackages(
    nodes.filter((n) => markerHolds(n.marker, python)),
    nodes.length,
  );
}
