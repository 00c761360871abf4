// Debian's own PyPI → Debian package map: dh-python's dist/cpython3_fallback, vendored in
// runtime/env/data/ (see its README for the release and version). Lines are
// `name debian-dependency[; PEP386|PEP440 rules]`; the key is normalized PEP 503 style (dh-python
// itself uses setuptools' safe_name, which agrees on every name in the file) and the first line for
// a name wins, as in dh-python. The file is read once, on first use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';
import { normalizeName } from './read/normalize.js';

const DEBIAN_NAME_MAP_PATH = join('runtime', 'env', 'data', 'cpython3_fallback');

let map: Map<string, string> | undefined;

export function parseNameMap(text: string): Map<string, string> {
  const parsed = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const found = /^([A-Za-z][A-Za-z0-9_.-]*)\s+([a-z0-9][a-z0-9+.-]*)/.exec(line);
    if (!found?.[1] || !found[2]) continue;
    const name = normalizeName(found[1]);
    if (!parsed.has(name)) parsed.set(name, found[2]);
  }
  return parsed;
}

/**
 * Names the vendored map (Debian 13's) gives no line, though Debian 12's package of that name
 * provides them: trixie's map names the package after the fork it now packages (html5lib-modern),
 * while bookworm's python3-html5lib is html5lib itself. Added only where the map has no line.
 */
const BOOKWORM_NAMES: Readonly<Record<string, string>> = { html5lib: 'python3-html5lib' };

function loaded(): Map<string, string> {
  if (!map) {
    map = parseNameMap(readFileSync(join(packageRoot(), DEBIAN_NAME_MAP_PATH), 'utf8'));
    for (const [name, debian] of Object.entries(BOOKWORM_NAMES)) if (!map.has(name)) map.set(name, debian);
  }
  return map;
}

/** The whole map, PyPI name (normalized) → Debian package. */
export function debianNameMap(): ReadonlyMap<string, string> {
  return loaded();
}

/** The Debian package that provides the PyPI distribution `pypiName`, or null if Debian has none. */
export function debianPackageFor(pypiName: string): string | null {
  return loaded().get(normalizeName(pypiName)) ?? null;
}
