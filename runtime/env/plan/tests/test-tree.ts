// Which files are the test tree, and which module names are local to the repository. The test
// tree is pytest's `testpaths` (when configured), else tests/, test/ and testing/; plus every
// conftest.py anywhere and test_*.py / *_test.py at the root. Local names (never distributions):
// every module and package in the test tree, beside a conftest.py, at the root, under the import
// root and the backend's package directory, and under pytest's `pythonpath`. The repository is
// untrusted: the walk skips hidden, virtualenv and build directories, stops at a depth and a
// number of files, and never leaves the repository (RepoReader resolves symlinks).
import { moduleKey } from '../infer/import-map.js';
import type { RepoReader } from '../read/repo-reader.js';
import { appendAll } from '../../../text/append.js';

export const MAX_TEST_FILES = 2000;
export const MAX_TEST_FILE_BYTES = 1024 * 1024;
const MAX_DEPTH = 8;
const MAX_ENTRIES = 50_000;
const SKIP_DIRS = new Set(['node_modules', '__pycache__', 'site-packages', 'build', 'dist', 'venv', 'env']);
const DEFAULT_TEST_DIRS = ['tests', 'test', 'testing'];

export interface TestTree {
  /** The test directories (or files) scanned, as found. */
  roots: string[];
  /** Python files to read, sorted; at most MAX_TEST_FILES. */
  files: string[];
  /** moduleKey forms of every local module and package name. */
  local: Set<string>;
  /** Whether the walk stopped at one of its limits. */
  truncated: boolean;
}

class Walk {
  entries = 0;
  truncated = false;
  constructor(readonly reader: RepoReader) {}

  /** Every file under `dir` (repo-relative), depth-first, sorted; directories by `enter`. */
  files(dir: string, enter: (path: string, name: string) => void = () => undefined, depth = 0): string[] {
    if (depth > MAX_DEPTH) return [];
    const out: string[] = [];
    for (const name of this.reader.list(dir)) {
      if (++this.entries > MAX_ENTRIES) {
        this.truncated = true;
        return out;
      }
      const path = dir === '.' ? name : `${dir}/${name}`;
      if (this.reader.isDir(path)) {
        if (name.startsWith('.') || SKIP_DIRS.has(name) || name.endsWith('.egg-info')) continue;
        if (this.reader.isFile(`${path}/pyvenv.cfg`)) continue;
        enter(path, name);
        appendAll(out, this.files(path, enter, depth + 1));
      } else out.push(path);
    }
    return out;
  }
}

function moduleName(file: string): string | null {
  const found = /^([\p{L}_][\p{L}\p{N}_]*)(?:\.[^/]*)?\.(py|pyi|pyx|so|pyd)$/u.exec(file);
  return found?.[1] ?? null;
}

function addEntries(reader: RepoReader, dir: string, local: Set<string>): void {
  for (const name of reader.list(dir)) {
    const path = dir === '.' ? name : `${dir}/${name}`;
    if (reader.isDir(path)) {
      if (/^[\p{L}_][\p{L}\p{N}_]*$/u.test(name)) local.add(moduleKey(name));
    } else {
      const module = moduleName(name);
      if (module) local.add(moduleKey(module));
    }
  }
}

function testRoots(reader: RepoReader, testpaths: string[] | null): string[] {
  // A glob in testpaths (`tests/*/unit`) is read from its literal part.
  const wanted = testpaths?.map((p) => p.split(/[*?[]/)[0]?.replace(/\/+$/, '') || '.') ?? DEFAULT_TEST_DIRS;
  return [...new Set(wanted)].filter((p) => p !== '.' && (reader.isDir(p) || reader.isFile(p)));
}

export function findTestTree(reader: RepoReader, testpaths: string[] | null, localDirs: string[]): TestTree {
  const walk = new Walk(reader);
  const local = new Set<string>();
  const roots = testRoots(reader, testpaths);
  const files = new Set<string>();
  for (const root of roots) {
    if (reader.isFile(root)) {
      files.add(root);
      continue;
    }
    local.add(moduleKey(root.split('/').pop() as string));
    const found = walk.files(root, (_path, name) => local.add(moduleKey(name)));
    for (const file of found) {
      const module = moduleName(file.split('/').pop() as string);
      if (module) local.add(moduleKey(module));
      if (file.endsWith('.py')) files.add(file);
    }
  }
  for (const file of walk.files('.')) {
    const name = file.split('/').pop() as string;
    const atRoot = !file.includes('/');
    if (name === 'conftest.py' || (atRoot && /^(test_.*|.*_test)\.py$/.test(name))) {
      files.add(file);
      addEntries(reader, file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.', local);
    }
  }
  for (const dir of ['.', ...localDirs]) addEntries(reader, dir, local);
  const sorted = [...files].sort();
  return {
    roots,
    files: sorted.slice(0, MAX_TEST_FILES),
    local,
    truncated: walk.truncated || sorted.length > MAX_TEST_FILES,
  };
}
