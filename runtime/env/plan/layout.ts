// Where the project's packages are imported from in the sandbox: /work/src for a src layout, /work
// otherwise. A src layout is `src/` holding a package (a directory with __init__.py or any .py
// file, or a module directly in src/), unless the build backend's configuration names another
// directory; an explicit `src` in that configuration is a src layout even before the code exists.
import type { RepoReader } from './repo-reader.js';

export interface Layout {
  layout: 'src' | 'flat';
  importRoot: '/work/src' | '/work';
  decision: string;
}

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
  if (packageDir) {
    const dir = packageDir.dir.replace(/^\.\//, '').replace(/\/+$/, '') || '.';
    const said = `${packageDir.file} ${packageDir.key} = "${packageDir.dir}"`;
    if (dir === 'src') return { ...src, decision: `src layout: ${said}` };
    if (dir === '.') return { ...flat, decision: `flat layout: ${said}` };
    return { ...flat, decision: `flat layout: ${said} is neither src nor the root, so /work is importable` };
  }
  const found = srcPackage(reader);
  if (found) return { ...src, decision: `src layout: ${found}` };
  return { ...flat, decision: 'flat layout: no package under src/' };
}
