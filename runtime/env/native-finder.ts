// Where a project's compiled modules live in its environment: each sandbox gets a fresh snapshot of
// the workspace at /work, which has no build products, so the extensions the project phase built in
// place are kept in the image at /opt/piper/built/<path in /work> and found by a small finder that
// piper writes (never the build): module name → file, checked by piper, inserted first on
// sys.meta_path so `pkg._speedups` loads from there while the rest of `pkg` comes from /work.
import { posix } from 'node:path';

export const BUILT_DIR = '/opt/piper/built';
const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** `/work/src/pkg/_x.cpython-313-x86_64-linux-gnu.so` → `pkg._x` (relative to the import roots). */
export function moduleOfBuilt(path: string, roots: string[]): string | null {
  const root = [...roots].sort((a, b) => b.length - a.length).find((r) => path.startsWith(`${r}/`));
  if (!root) return null;
  const rel = path.slice(root.length + 1);
  const dir = posix.dirname(rel);
  const base = posix.basename(rel).split('.')[0]!;
  const name = dir === '.' ? base : `${dir.split('/').join('.')}.${base}`;
  return MODULE.test(name) ? name : null;
}

export function nativeFinderSource(modules: Record<string, string>): string {
  return `# Written by piper-agent: the project's compiled modules, built in the environment's build step.
import sys
from importlib.util import spec_from_file_location

BUILT = ${JSON.stringify(modules)}


class _PiperBuiltFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname in BUILT:
            return spec_from_file_location(fullname, BUILT[fullname])
        return None


def install():
    if _PiperBuiltFinder not in sys.meta_path:
        sys.meta_path.insert(0, _PiperBuiltFinder)
`;
}
