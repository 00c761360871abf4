// setuptools' editable install of a flat-layout (or mapped) project imports it through a finder
// module it writes into site-packages (`__editable___<name>_finder.py`, started by a `.pth`). That
// module is code written by the repository's build, so it never reaches an image as written: its
// MAPPING (top-level name → directory) and NAMESPACES are read as literals, checked to point into
// the workspace, and piper writes a finder of its own from them.
import { posix } from 'node:path';

export interface FinderMapping {
  mapping: Record<string, string>;
  namespaces: Record<string, string[]>;
}

/** A Python literal of str / list / dict as setuptools writes them (repr); null when it is anything else. */
function parseLiteral(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return str(c);
    if (c === '[') return seq(']', () => value());
    if (c === '{') {
      const out: Record<string, unknown> = {};
      seq('}', () => {
        const k = value();
        ws();
        if (typeof k !== 'string' || text[i++] !== ':') throw new Error('bad key');
        out[k] = value();
      });
      return out;
    }
    throw new Error(`unexpected ${c}`);
  };
  const seq = <T>(close: string, item: () => T): T[] => {
    const items: T[] = [];
    i++;
    for (;;) {
      ws();
      if (text[i] === close) return (i++, items);
      items.push(item());
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== close) throw new Error('expected , or close');
    }
  };
  const str = (quote: string): string => {
    let out = '';
    i++;
    while (i < text.length && text[i] !== quote) {
      if (text[i] === '\\') {
        const n = text[++i];
        out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
        i++;
      } else out += text[i++];
    }
    if (text[i++] !== quote) throw new Error('unterminated string');
    return out;
  };
  try {
    const v = value();
    ws();
    return i === text.length ? v : null;
  } catch {
    return null;
  }
}

const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function insideWorkspace(path: string): boolean {
  return (
    posix.isAbsolute(path) &&
    (posix.normalize(path) === '/work' || posix.normalize(path).startsWith('/work/')) &&
    !path.split('/').includes('..')
  );
}

/** The finder's mapping, or a reason it cannot be used. */
export function readFinderMapping(source: string): FinderMapping | string {
  const line = (name: string) => new RegExp(`^${name}(?::[^=\\n]*)? = (.*)$`, 'm').exec(source)?.[1];
  const mapping = parseLiteral(line('MAPPING') ?? '');
  const namespaces = parseLiteral(line('NAMESPACES') ?? '{}');
  if (!mapping || typeof mapping !== 'object' || Array.isArray(mapping)) return 'no MAPPING literal';
  for (const [k, v] of Object.entries(mapping)) {
    if (!MODULE.test(k) || typeof v !== 'string' || !insideWorkspace(v))
      return `MAPPING ${k} → ${String(v)} is not a module in /work`;
  }
  if (!namespaces || typeof namespaces !== 'object' || Array.isArray(namespaces))
    return 'no NAMESPACES literal';
  for (const [k, v] of Object.entries(namespaces)) {
    if (!MODULE.test(k) || !Array.isArray(v) || !v.every((p) => typeof p === 'string' && insideWorkspace(p)))
      return `NAMESPACES ${k} is not a list of paths in /work`;
  }
  return { mapping: mapping as Record<string, string>, namespaces: namespaces as Record<string, string[]> };
}

/** piper's finder for a mapping: the same lookups as setuptools', from data JSON can carry. */
export function finderSource(m: FinderMapping): string {
  return `# Written by piper-agent from the editable install's mapping (runtime/env/build/project/editable-finder.ts).
import sys
from importlib.machinery import ModuleSpec, PathFinder, all_suffixes
from importlib.util import spec_from_file_location
from pathlib import Path

MAPPING = ${JSON.stringify(m.mapping)}
NAMESPACES = ${JSON.stringify(m.namespaces)}


class _PiperEditableFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname in MAPPING:
            base = Path(MAPPING[fullname])
            for candidate in [base / "__init__.py", *(base.with_suffix(s) for s in all_suffixes())]:
                if candidate.exists():
                    return spec_from_file_location(fullname, candidate)
            return None
        if fullname in NAMESPACES:
            spec = ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = list(NAMESPACES[fullname])
            return spec
        parent, _, _child = fullname.rpartition(".")
        if parent and parent in MAPPING:
            return PathFinder.find_spec(fullname, path=[MAPPING[parent]])
        return None


def install():
    if not any(getattr(f, "__name__", "") == "_PiperEditableFinder" for f in sys.meta_path):
        sys.meta_path.append(_PiperEditableFinder)
`;
}
