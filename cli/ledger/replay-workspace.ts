// A fresh copy of a run's repository at the commit the run started from (runs.head), for replay:
// `git archive` of that commit unpacked into a new directory and committed there as one commit, so
// the copy lists the same tracked files the run's code index saw and the original repository is
// not touched (no worktree entry, no checkout). Files the run saw but git did not track
// (uncommitted changes) cannot be recovered from a commit; the replay says so when it diverges.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunRow } from './find-run.js';
import { CommandError } from './command-error.js';

export function checkoutRunHead(run: RunRow, source: string | null, into: string): string {
  const repo = source ?? run.repo;
  if (!repo || !existsSync(repo)) {
    throw new CommandError(
      `the run's repository ${repo ?? '(none recorded)'} is not there`,
      'pass --repo DIR with a clone that has the commit the run started from',
    );
  }
  if (!run.head) {
    throw new CommandError(
      `run ${run.id} recorded no git HEAD: ${repo} was not a git repository when it ran, so there is no commit to replay it on`,
    );
  }
  if (!git(repo, ['rev-parse', '--git-dir']))
    throw new CommandError(
      `${repo} is not a git repository, so the run's commit ${run.head.slice(0, 12)} cannot be checked out`,
      'pass --repo DIR with a clone of it',
    );
  if (git(repo, ['cat-file', '-e', `${run.head}^{commit}`]) === null) {
    throw new CommandError(
      `the run's commit ${run.head.slice(0, 12)} is gone from ${repo} (rebased, amended or garbage-collected)`,
      'pass --repo DIR with a clone that still has it',
    );
  }
  const dir = join(into, 'repo');
  mkdirSync(dir, { recursive: true });
  const tar = join(into, 'head.tar');
  if (git(repo, ['archive', '--format=tar', '-o', tar, run.head]) === null)
    throw new CommandError(`git archive of ${run.head.slice(0, 12)} in ${repo} failed`);
  execFileSync('tar', ['-xf', tar, '-C', dir], { stdio: 'ignore' });
  const ident = [
    '-c',
    'user.name=piper-agent replay',
    '-c',
    'user.email=replay@piper-agent.invalid',
    '-c',
    'commit.gpgsign=false',
  ];
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    [...ident, 'commit', '-q', '--allow-empty', '-m', `replay of ${run.id} at ${run.head}`],
  ]) {
    if (git(dir, args) === null) throw new CommandError(`committing the replay copy ${dir} with git failed`);
  }
  return dir;
}

/** git's stdout, or null when it fails. */
function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}
