// A fresh copy of a run's repository at the commit the run started from (runs.head), for replay:
// the commit's blobs written into a new directory and committed there as one commit, so the copy
// lists the same tracked files the run's code index saw and the original repository is not
// touched (no worktree entry, no checkout). Files the run saw but git did not track (uncommitted
// changes) cannot be recovered from a commit; the replay says so when it diverges.
//
// The blobs are read raw (`ls-tree` + `cat-file --batch`), not through `git archive` or a
// checkout: those apply the repository's smudge filters, which are commands its .git/config names.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gitInOwnRepo, gitRead, gitRepoAt, type GitRepo } from '../../runtime/host/safe-git.js';
import type { FoundRun } from './find-run.js';
import { CommandError } from './command-error.js';

interface TreeEntry {
  mode: string;
  sha: string;
  path: string;
}

export function checkoutRunHead(run: FoundRun, source: string | null, into: string): string {
  const path = source ?? run.repo;
  if (!path || !gitRepoAt(path)) {
    throw new CommandError(
      `the run's repository ${path ?? '(none recorded)'} is not there, or is not a git repository with a .git directory`,
      'pass --repo DIR with a clone that has the commit the run started from',
    );
  }
  const repo = gitRepoAt(path)!;
  if (!run.head) {
    throw new CommandError(
      `run ${run.id} recorded no git HEAD: ${path} was not a git repository when it ran, so there is no commit to replay it on`,
    );
  }
  if (
    !/^[0-9a-f]{40,64}$/.test(run.head) ||
    gitRead(repo, ['cat-file', '-e', `${run.head}^{commit}`]) === null
  ) {
    throw new CommandError(
      `the run's commit ${run.head.slice(0, 12)} is gone from ${path} (rebased, amended or garbage-collected)`,
      'pass --repo DIR with a clone that still has it',
    );
  }
  const dir = join(into, 'repo');
  mkdirSync(dir, { recursive: true });
  writeTree(repo, run.head, dir);
  const identity = { name: 'piper-agent replay', email: 'replay@piper-agent.invalid' };
  try {
    gitInOwnRepo(dir, ['init', '-q'], identity);
    gitInOwnRepo(dir, ['add', '-A'], identity);
    gitInOwnRepo(
      dir,
      ['commit', '-q', '--allow-empty', '-m', `replay of ${run.id} at ${run.head}`],
      identity,
    );
  } catch {
    throw new CommandError(`committing the replay copy ${dir} with git failed`);
  }
  return dir;
}

/** The commit's files under `dir`: regular files first, symbolic links last, submodules left out. */
function writeTree(repo: GitRepo, commit: string, dir: string): void {
  const fail = () =>
    new CommandError(`reading commit ${commit.slice(0, 12)} from ${repo.root} with git failed`);
  const listing = gitRead(repo, ['ls-tree', '-r', '-z', '--full-tree', commit]);
  if (listing === null) throw fail();
  const entries: TreeEntry[] = [];
  for (const line of listing.toString('utf8').split('\0')) {
    const m = /^(\d{6}) (blob|commit) ([0-9a-f]+)\t(.+)$/s.exec(line);
    if (!m || m[2] !== 'blob') continue; // gitlinks (submodules) have no content here
    // A crafted tree can hold any name: nothing may climb out of `dir` or into a .git.
    const parts = m[4]!.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')) continue;
    entries.push({ mode: m[1]!, sha: m[3]!, path: m[4]! });
  }
  // Nor may a path lie below another entry (a link `a` and a file `a/b`): only crafted trees do that.
  const names = new Set(entries.map((e) => e.path));
  const below = (path: string) => {
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1))
      if (names.has(path.slice(0, i))) return true;
    return false;
  };
  entries.splice(0, entries.length, ...entries.filter((e) => !below(e.path)));
  if (entries.length === 0) return;
  const blobs = gitRead(repo, ['cat-file', '--batch'], {
    input: entries.map((e) => `${e.sha}\n`).join(''),
    maxBuffer: 2 * 1024 ** 3,
  });
  if (blobs === null) throw fail();
  let at = 0;
  const contents: Buffer[] = [];
  for (const entry of entries) {
    const nl = blobs.indexOf(10, at);
    const header = blobs.subarray(at, nl).toString('utf8').split(' ');
    if (header[0] !== entry.sha || header[1] !== 'blob') throw fail();
    const size = Number(header[2]);
    contents.push(blobs.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  // Links last: a file is never written through a link this copy made.
  const order = entries
    .map((e, i) => i)
    .sort((a, b) => Number(isLink(entries[a]!)) - Number(isLink(entries[b]!)));
  for (const i of order) {
    const entry = entries[i]!;
    const target = join(dir, entry.path);
    mkdirSync(dirname(target), { recursive: true });
    if (isLink(entry)) symlinkSync(contents[i]!.toString('utf8'), target);
    else writeFileSync(target, contents[i]!, { mode: entry.mode === '100755' ? 0o755 : 0o644, flag: 'wx' });
  }
}

function isLink(entry: TreeEntry): boolean {
  return entry.mode === '120000';
}
