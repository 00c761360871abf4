// The one listing of a repository's files, used by the sandbox snapshot (snapshot.ts) and by the
// code index (primitives/index/repo-files.ts), so that what the model can read and what its tests
// run on are the same files. In a git work tree: what git lists (tracked plus untracked files it
// does not ignore); elsewhere, or when .git is a `gitdir:` file that may point anywhere, a walk of
// the tree. In both modes the same directories are left out (SKIPPED_DIRS and the two rules below):
// what a project's usual Python .gitignore ignores, so a walk lists what git would, and git mode
// does not take an environment or a cache that was merely never ignored. One exception, in git mode:
// a tracked file in a node_modules directory no install fills (committedFixture) is kept.
//
// The listing is names only: whether each path is a regular file, a link, something else, or
// reached through a link leaving the repository is for each user to decide (they differ: the
// snapshot packs links inside the repository, the index reads only plain regular files).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gitRead, gitRepoAt } from '../host/safe-git.js';
import { appendAll } from '../text/append.js';

/**
 * Directory names never listed, and why. None of them holds what a test run needs: the sandbox
 * has its own environment (built from the dependency files, which are listed), and the project's
 * source, tests, conftest.py and configuration files live outside all of them.
 */
export const SKIPPED_DIRS: ReadonlyMap<string, string> = new Map([
  ['.git', "git's own data: history, hooks and config, never the work tree"],
  ['.hg', "Mercurial's own data"],
  ['.svn', "Subversion's own data"],
  ['.piper', "piper-agent's own data (its config and recipe are read on the host, not in the sandbox)"],
  ['.venv', 'a virtual environment: installed packages built for the host, not the project'],
  ['venv', 'a virtual environment under its other usual name'],
  ['.tox', "tox's environments"],
  ['.nox', "nox's environments"],
  ['node_modules', 'JavaScript dependencies: large, never the Python project'],
  ['.eggs', "setuptools' downloads for setup_requires: other projects' code"],
  ['__pycache__', 'bytecode Python writes itself; a stale copy could shadow an edited module'],
  ['.pytest_cache', "pytest's cache (--lf state): a test run in the sandbox starts without it"],
  ['.mypy_cache', "mypy's cache"],
  ['.ruff_cache', "ruff's cache"],
]);

/**
 * Build output: `build/` and `dist/` hold copies of the source (build/lib) and archives, skipped
 * unless the directory is itself a package (holds `__init__.py`): then it is source named `build`.
 */
const BUILD_DIRS = new Set(['build', 'dist']);

export interface SkippedEntry {
  path: string;
  /** submodule, nested repository, fifo, socket, device, unreadable, symlink outside the repository, ... */
  reason: string;
}

export interface RepoListing {
  /** Repo-relative paths with '/' separators, sorted by code unit; directories are not listed. */
  paths: string[];
  mode: 'git' | 'walk';
  /** What the listing met and left out with a reason: submodules, nested repositories, unreadable dirs. */
  skipped: SkippedEntry[];
}

/** Every path of the repository at `root` (absolute, links resolved) but the skipped directories'. */
export function listRepoFiles(root: string): RepoListing {
  const skip = new SkippedDirs(root);
  const skipped: SkippedEntry[] = [];
  const fromGit = gitListing(root, skipped);
  if (fromGit) {
    const kept = fromGit.all.filter((p) => !skip.skipsPath(p) || committedFixture(p, fromGit.tracked));
    return { paths: kept.sort(compare), mode: 'git', skipped };
  }
  return { paths: walk(root, '', skip, skipped).sort(compare), mode: 'walk', skipped };
}

/**
 * A tracked file in a `node_modules` directory with no package.json beside it (pino's
 * test/fixtures/eval/node_modules/*.js): no install puts a tree there, so it is the project's own,
 * as a CI checkout has it. Any other skipped directory on its way still skips it.
 */
function committedFixture(path: string, tracked: ReadonlySet<string>): boolean {
  if (!tracked.has(path)) return false;
  const parts = path.split('/');
  const at = parts.indexOf('node_modules');
  if (at < 0 || parts.lastIndexOf('node_modules') !== at) return false;
  const dir = parts.slice(0, at).join('/');
  if (tracked.has(dir ? `${dir}/package.json` : 'package.json')) return false;
  return !parts.slice(0, -1).some((name, i) => i !== at && (SKIPPED_DIRS.has(name) || BUILD_DIRS.has(name)));
}

/** Whether a repo-relative path lies in a skipped directory (or is git's own `.git` file). */
export function isSkippedPath(root: string, path: string): boolean {
  return new SkippedDirs(root).skipsPath(path);
}

/** The verdict on each directory, decided once: 100,000 files cost one check per directory. */
class SkippedDirs {
  private readonly verdicts = new Map<string, boolean>();
  constructor(private readonly root: string) {}

  skipsPath(path: string): boolean {
    const parts = path.split('/');
    if (this.skipsName(parts[parts.length - 1]!)) return true;
    for (let i = 1; i < parts.length; i++) if (this.skipsDir(parts.slice(0, i).join('/'))) return true;
    return false;
  }

  /** A `.git` file (a worktree's `gitdir:` pointer) is git's data too; a `.piper` file, piper's. */
  skipsName(fileName: string): boolean {
    return fileName === '.git' || fileName === '.piper';
  }

  skipsDir(dir: string): boolean {
    let verdict = this.verdicts.get(dir);
    if (verdict === undefined) {
      const name = dir.slice(dir.lastIndexOf('/') + 1);
      const abs = join(this.root, dir);
      verdict =
        SKIPPED_DIRS.has(name) ||
        name.endsWith('.egg-info') || // setuptools' metadata of an old build; the sandbox installs afresh
        (BUILD_DIRS.has(name) && !existsSync(join(abs, '__init__.py'))) ||
        existsSync(join(abs, 'pyvenv.cfg')); // a virtual environment under any name
      this.verdicts.set(dir, verdict);
    }
    return verdict;
  }
}

/**
 * Tracked (with their modes, so submodules are known) plus untracked-not-ignored paths, or null
 * when git cannot say (no repository, a .git file, no git, git failed). Two git processes whatever
 * the repository's size.
 */
function gitListing(root: string, skipped: SkippedEntry[]): { all: string[]; tracked: Set<string> } | null {
  const repo = gitRepoAt(root);
  if (!repo) return null;
  const cached = gitRead(repo, ['ls-files', '-z', '-s']);
  const others = gitRead(repo, ['ls-files', '-z', '--others', '--exclude-standard']);
  if (cached === null || others === null) return null;
  const paths = new Set<string>();
  const tracked = new Set<string>();
  for (const line of cached.toString('utf8').split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const path = line.slice(tab + 1);
    // Mode 160000 is a gitlink: a submodule's directory, whose files belong to another repository.
    if (line.startsWith('160000 ')) skipped.push({ path, reason: 'submodule' });
    else {
      paths.add(path);
      tracked.add(path);
    }
  }
  for (const path of others.toString('utf8').split('\0')) {
    if (!path) continue;
    // git lists an untracked directory holding its own .git as `dir/` and does not look inside.
    if (path.endsWith('/')) skipped.push({ path: path.slice(0, -1), reason: 'nested repository' });
    else paths.add(path);
  }
  return { all: [...paths], tracked };
}

/** Every non-directory entry below `rel`; directory links are listed, not followed. */
function walk(root: string, rel: string, skip: SkippedDirs, skipped: SkippedEntry[]): string[] {
  const out: string[] = [];
  let names;
  try {
    names = readdirSync(join(root, rel), { withFileTypes: true });
  } catch {
    skipped.push({ path: rel || '.', reason: 'unreadable directory' });
    return out;
  }
  for (const entry of names.sort((a, b) => compare(a.name, b.name))) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!skip.skipsDir(path)) appendAll(out, walk(root, path, skip, skipped));
    } else if (!skip.skipsName(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

/** Code-unit order, the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
