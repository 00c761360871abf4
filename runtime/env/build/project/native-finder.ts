// Where a project's compiled modules live in its environment: each sandbox gets a fresh snapshot of
// the workspace at /work, which has no build products, so the extensions the project phase built in
// place are kept in the image at /opt/piper/built/<path in /work> and found by a small finder that
// piper writes (never the build): module name → file, checked by piper, inserted first on
// sys.meta_path so `pkg._speedups` loads from there while the rest of `pkg` comes from /work.
import { posix } from 'node:path';
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { pthImportLine } from './pth-lines.js';
import { readTar, type FileToWrite } from '../tar-files.js';

const BUILT_DIR = '/opt/piper/built';
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

function nativeFinderSource(modules: Record<string, string>): string {
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

/**
 * The compiled modules the build left in /work, kept at BUILT_DIR with the finder above and its
 * import line for piper's `.pth`. None when the project has compiled parts: its pure-Python
 * fallback, or the source tree, is what the suite gets — said in one line.
 */
export async function builtModules(
  ctx: BuildContext,
  box: BuildBox,
  paths: string[],
  site: string,
): Promise<{ files: FileToWrite[]; imports: string[] }> {
  const { plan, native } = ctx.input;
  if (!native || native.kind === 'rust') return { files: [], imports: [] };
  if (!paths.length) {
    ctx.sources.push(
      `native: ${native.evidence}, but the build made no compiled module; its pure-Python fallback is used`,
    );
    return { files: [], imports: [] };
  }
  const files: FileToWrite[] = [];
  const modules: Record<string, string> = {};
  for (const path of paths) {
    const module = moduleOfBuilt(path, [plan.project.importRoot, '/work']);
    const entry = (await readTar(await box.read(path, 512 << 20))).find((e) => e.type === 'file');
    if (!module || !entry) continue;
    const target = `${BUILT_DIR}${path.slice('/work'.length)}`;
    files.push({ path: target, data: entry.data, mode: 0o755 });
    modules[module] = target;
  }
  files.push({
    path: `${site}/_piper_built_finder.py`,
    data: Buffer.from(nativeFinderSource(modules)),
    mode: 0o644,
  });
  ctx.sources.push(`native: built ${Object.keys(modules).sort().join(', ')} (${native.evidence})`);
  return { files, imports: [pthImportLine('_piper_built_finder')] };
}
