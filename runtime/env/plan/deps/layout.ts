// Where the project's packages are imported from in the sandbox: /work/src for a src layout, the
// mapped directory (/work/lib) when the build configuration maps the root package elsewhere, /work
// otherwise. A src layout is `src/` holding a package (a directory with __init__.py or any .py
// file, or a module directly in src/), unless the build backend's configuration names another
// directory; an explicit `src` in that configuration is a src layout even before the code exists.
// [real-fixtures hook] package-dir layouts and setup.py's package_dir (read as text) are new.
import type { RepoReader } from '../read/repo-reader.js';
import { SETUP_PY, setupPyPackageDir } from './setup-py-layout.js';

export interface Layout {
  layout: 'src' | 'flat' | 'package-dir';
  importRoot: string;
  decision: string;
}

/** A directory the import root may name: relative, inside the repository, plain segments only. */
const SAFE_DIR = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;

function srcPackage(reader: RepoReader): string | null {
  for (const entry of reader.list('src')) {
    const path = `src/${entry}`;
    if (entry.endsWith('.py') && reader.isFile(path)) return path;
    if (!reader.isDir(path) || entry.startsWith('.') || entry.endsWith('.egg-info')) continue;
    const init = `${path}/__init__.py`;
    if (reader.isFile(init)) return init;
    const module = reader.list(path).find((name) => name.endsWith('.py') && reader.isFile(`${path}/${name}`));
    if (module) return `${path}/${module}`;
  }
  return null;
}

export function detectLayout(
  reader: RepoReader,
  packageDir: { dir: string; key: string; file: string } | null,
): Layout {
  const src: Layout = { layout: 'src', importRoot: '/work/src', decision: '' };
  const flat: Layout = { layout: 'flat', importRoot: '/work', decision: '' };
  const setupPy = packageDir ? null : reader.readText(SETUP_PY, 'dependencies');
  const mapped = packageDir ?? (setupPy === null ? null : setupPyPackageDirOf(setupPy));
  if (mapped) {
    const dir = mapped.dir.replace(/^\.\//, '').replace(/\/+$/, '') || '.';
    const said = `${mapped.file} ${mapped.key} = "${mapped.dir}"`;
    if (dir === 'src') return { ...src, decision: `src layout: ${said}` };
    if (dir === '.') return { ...flat, decision: `flat layout: ${said}` };
    if (SAFE_DIR.test(dir))
      return { layout: 'package-dir', importRoot: `/work/${dir}`, decision: `package-dir layout: ${said}` };
    return {
      ...flat,
      decision: `flat layout: ${said} is not a plain directory of the repository, so /work is importable`,
    };
  }
  const found = srcPackage(reader);
  if (found) return { ...src, decision: `src layout: ${found}` };
  return { ...flat, decision: 'flat layout: no package under src/' };
}

function setupPyPackageDirOf(text: string): { dir: string; key: string; file: string } | null {
  const found = setupPyPackageDir(text);
  return found ? { ...found, file: SETUP_PY } : null;
}
