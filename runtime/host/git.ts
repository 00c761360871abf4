// The target repository: the git root of a directory, or the directory itself outside git. Every
// git call goes through safe-git.ts (the repository's own config never runs a command here).
import { cpSync, existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitInOwnRepo, gitReadAsync, gitRepoAt } from './safe-git.js';

/**
 * The nearest directory at or above `dir` holding a `.git` (a directory, or a `gitdir:` file as in
 * worktrees and submodules: that directory is still the top of the work tree), resolved by piper
 * rather than by git's discovery, which a repository's `core.worktree` could redirect.
 */
export function repoRoot(dir = process.cwd()): string {
  return gitRootAbove(dir) ?? resolve(dir);
}

/** The nearest directory at or above `dir` holding a `.git`; undefined outside any repository. */
export function gitRootAbove(dir = process.cwd()): string | undefined {
  let start: string;
  try {
    start = realpathSync(resolve(dir));
  } catch {
    return undefined;
  }
  for (let at = start; ; at = dirname(at)) {
    if (hasDotGit(at)) return at;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * HEAD's commit, or undefined outside a repository (a `.git` file counts as outside). Async: a run
 * asks it first and awaits it last, so git runs while the engine and the ledger are set up.
 */
export async function gitHead(dir: string): Promise<string | undefined> {
  const repo = gitRepoAt(dir);
  if (!repo) return undefined;
  const head = (await gitReadAsync(repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']))
    ?.toString('utf8')
    .trim();
  return head && /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
}

/**
 * A copy of `src` at `dest` as a fresh git repository with one commit: what the demo, the A/B
 * runner and the tests work on, so a run records a HEAD and its edits show as a diff. Caches and a
 * ledger of the source are not copied; the commit uses a fixed identity and no hooks or signing,
 * whatever the user's git configuration says.
 */
export function copyAsGitRepo(src: string, dest: string, message: string): string {
  cpSync(src, dest, {
    recursive: true,
    filter: (path) => !/[/\\](\.git|__pycache__|\.pytest_cache|\.piper)$/.test(path),
  });
  const identity = { name: 'piper-agent', email: 'piper-agent@localhost' };
  gitInOwnRepo(dest, ['init', '-q'], identity);
  gitInOwnRepo(dest, ['add', '-A'], identity);
  gitInOwnRepo(dest, ['commit', '-q', '-m', message], identity);
  return dest;
}

function hasDotGit(dir: string): boolean {
  const dotGit = join(dir, '.git');
  if (!existsSync(dotGit)) return false;
  try {
    const st = lstatSync(dotGit);
    return st.isDirectory() || st.isFile();
  } catch {
    return false;
  }
}
