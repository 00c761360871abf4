// Which source files of a repo the index reads: the paths of the repository listing with the
// language's endings (`.py` for Python: runtime/language/language.ts)
// (runtime/workspace/repo-listing.ts, the same listing the sandbox snapshot packs, so the model
// reads the files its tests run on), and of those only regular files reached through no symbolic
// link: git still lists the files it tracked under `vendor/` after `vendor` became a link to a
// directory outside the repository.
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RealDirs } from '../../runtime/host/inside-repo.js';
import { isSourceOf, type LanguageId } from '../../runtime/language/language.js';
import { gitRead, gitRepoAt } from '../../runtime/host/safe-git.js';
import { isSkippedPath, listRepoFiles } from '../../runtime/workspace/repo-listing.js';
import { IndexError } from './index-error.js';

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

export function listSourceFiles(root: string, language: LanguageId): RepoFiles {
  const { paths, mode } = listRepoFiles(root);
  const dirs = new RealDirs(root);
  return { paths: paths.filter((p) => isSourceOf(language, p) && isPlainRegularFile(root, dirs, p)), mode };
}

export function listPythonFiles(root: string): RepoFiles {
  return listSourceFiles(root, 'python');
}

/** Whether the index should hold this repo-relative path (used when a single file is refreshed). */
export function isIndexable(root: string, path: string, language: LanguageId = 'python'): boolean {
  if (!isSourceOf(language, path) || path.startsWith('../') || isSkippedPath(root, path)) return false;
  if (!isPlainRegularFile(root, new RealDirs(root), path)) return false;
  return !isIgnoredByGit(root, path);
}

function isIgnoredByGit(root: string, path: string): boolean {
  const repo = gitRepoAt(root);
  // Exit 0 (output, even empty): ignored; 1: not ignored; 128: not a git work tree.
  return repo !== null && gitRead(repo, ['check-ignore', '-q', '--', path]) !== null;
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
