// The target repository: the git root of a directory, or the directory itself outside git.
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { resolve } from 'node:path';

export function repoRoot(dir = process.cwd()): string {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return resolve(dir);
  }
}

export function gitHead(dir: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
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
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      [
        '-c',
        'user.name=piper-agent',
        '-c',
        'user.email=piper-agent@localhost',
        '-c',
        'commit.gpgsign=false',
        '-c',
        'core.hooksPath=/dev/null',
        ...args,
      ],
      { cwd: dest, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', message);
  return dest;
}
