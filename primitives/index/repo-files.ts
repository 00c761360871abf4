// Which Python files of a repo the index reads. In a git work tree: what git lists (tracked plus
// untracked-not-ignored), so ignored files never enter; elsewhere (or when .git is a `gitdir:`
// file, which may point anywhere) a walk of the tree. Either way the same directories are skipped:
// VCS and piper's own data, virtual environments, dependency and build output, caches. Only
// regular files reached through no symbolic link are listed: git still lists the files it tracked
// under `vendor/` after `vendor` became a link to a directory outside the repository.
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RealDirs } from '../../runtime/host/inside-repo.js';
import { gitRead, gitRepoAt } from '../../runtime/host/safe-git.js';
import { IndexError } from './index-error.js';

const SKIPPED_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  '.piper',
  '.venv',
  'venv',
  '.tox',
  '.nox',
  'node_modules',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.eggs',
]);
/** Build output; skipped unless the directory is itself a package (holds `__init__.py`). */
const BUILD_DIRS = new Set(['build', 'dist']);

export interface RepoFiles {
  /** Repo-relative paths with '/' separators, sorted. */
  paths: string[];
  mode: 'git' | 'walk';
}

/** The repo root, absolute with symbolic links resolved (one repo, one key in the ledger). */
export function resolveRepoRoot(dir: string): string {
  try {
    return realpathSync(resolve(dir));
  } catch (error) {
    throw new IndexError('repo_unreadable', `cannot index ${dir}: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
}

/** A path (absolute, or relative to the root) as a repo-relative '/' path; null when outside the repo. */
export function repoRelative(root: string, path: string): string | null {
  const rel = relative(root, resolve(root, path));
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

export function listPythonFiles(root: string): RepoFiles {
  const fromGit = gitListing(root);
  const skip = new DirectorySkipper(root);
  if (fromGit) {
    const dirs = new RealDirs(root);
    const paths = fromGit.filter(
      (p) => p.endsWith('.py') && !skip.skipsPath(p) && isPlainRegularFile(root, dirs, p),
    );
    return { paths: sortPaths(paths), mode: 'git' };
  }
  const paths: string[] = [];
  walk(root, '', skip, paths);
  return { paths: sortPaths(paths), mode: 'walk' };
}

/** Whether the index should hold this repo-relative path (used when a single file is refreshed). */
export function isIndexable(root: string, path: string): boolean {
  if (!path.endsWith('.py') || path.startsWith('../') || new DirectorySkipper(root).skipsPath(path))
    return false;
  if (!isPlainRegularFile(root, new RealDirs(root), path)) return false;
  return !isIgnoredByGit(root, path);
}

function gitListing(root: string): string[] | null {
  const repo = gitRepoAt(root);
  // No repository (or a .git file), no git, or git failed: walk instead.
  const out = repo && gitRead(repo, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (!out) return null;
  return [
    ...new Set(
      out
        .toString('utf8')
        .split('\0')
        .filter((p) => p.length > 0),
    ),
  ];
}

function isIgnoredByGit(root: string, path: string): boolean {
  const repo = gitRepoAt(root);
  // Exit 0 (output, even empty): ignored; 1: not ignored; 128: not a git work tree.
  return repo !== null && gitRead(repo, ['check-ignore', '-q', '--', path]) !== null;
}

class DirectorySkipper {
  private readonly verdicts = new Map<string, boolean>();
  constructor(private readonly root: string) {}

  /** True when any directory on the path is skipped. */
  skipsPath(path: string): boolean {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (this.skipsDir(parts.slice(0, i).join('/'))) return true;
    }
    return false;
  }

  skipsDir(dir: string): boolean {
    let verdict = this.verdicts.get(dir);
    if (verdict === undefined) {
      const name = dir.slice(dir.lastIndexOf('/') + 1);
      const abs = join(this.root, dir);
      verdict =
        SKIPPED_DIRS.has(name) ||
        name.endsWith('.egg-info') ||
        (BUILD_DIRS.has(name) && !existsSync(join(abs, '__init__.py'))) ||
        existsSync(join(abs, 'pyvenv.cfg')); // a virtual environment under any name
      this.verdicts.set(dir, verdict);
    }
    return verdict;
  }
}

function walk(root: string, dir: string, skip: DirectorySkipper, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return; // unreadable directory: nothing to index there
  }
  for (const entry of entries) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    // Symbolic links are not followed: no loops, and no file outside the repo gets indexed.
    if (entry.isDirectory()) {
      if (!skip.skipsDir(rel)) walk(root, rel, skip, out);
    } else if (entry.isFile() && entry.name.endsWith('.py')) {
      out.push(rel);
    }
  }
}

/** A regular file whose directories are the repository's own (no link on the way, in or out). */
function isPlainRegularFile(root: string, dirs: RealDirs, path: string): boolean {
  if (path.split('/').includes('..') || !dirs.parentIsPlain(path)) return false;
  try {
    return lstatSync(join(root, path)).isFile();
  } catch {
    return false;
  }
}

/** Code-unit order, the same on every machine and locale. */
function sortPaths(paths: string[]): string[] {
  return paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
