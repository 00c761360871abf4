// A ledger file git tracks is the repository's, not piper's record: anyone who can commit to the
// repository wrote it, so a run, a suite result or an environment build in it says nothing about
// what ran here. Ledger.open refuses one before SQLite reads a byte, whoever named it (--ledger,
// PIPER_LEDGER, a trusted config's `ledger`). Its journal files count too: SQLite replays a `-wal`
// beside the database when it opens it, so a tracked `-wal` would write rows into an untracked file.
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { RuntimeError } from '../errors.js';
import { gitRead, gitRepoAt } from '../host/safe-git.js';

const SIDE_FILES = ['', '-wal', '-shm', '-journal'];

/**
 * The root of the git repository that tracks the ledger at `path` (or one of its journal files),
 * or null. The repository is the nearest directory above the file's real path with a `.git`; a
 * `.git` that is a file (a worktree, a submodule) points elsewhere and is not followed, and a git
 * that cannot answer (none installed, a broken repository) is taken as "not tracked": the default
 * ledger is outside every repository, so only a path the user named gets here.
 */
export function trackedBy(path: string): string | null {
  const real = realFile(resolve(path));
  for (let dir = dirname(real); ; dir = dirname(dir)) {
    if (exists(join(dir, '.git'))) {
      const repo = gitRepoAt(dir);
      if (!repo) return null;
      const rel = relative(dir, real);
      // `:(literal)`: a file name with `*` or `?` names that file, not a pattern over others.
      const specs = SIDE_FILES.map((side) => `:(literal)${rel}${side}`);
      const listed = gitRead(repo, ['ls-files', '-z', '--', ...specs]);
      return listed !== null && listed.length > 0 ? dir : null;
    }
    if (dirname(dir) === dir) return null;
  }
}

/** Refuses (exit 2) a ledger file the repository around it tracks in git. */
export function refuseTrackedLedger(path: string): void {
  const repo = trackedBy(path);
  if (repo === null) return;
  throw new RuntimeError(
    'ledger_refused',
    `the ledger ${path} is tracked by git in ${repo}: a file a repository carries is never piper's record (its runs and suite results could say anything), so it is not opened`,
    'leave --ledger and PIPER_LEDGER unset to use your own ledger in the state directory, or name a file git does not track',
  );
}

/**
 * The real path of `path` as far as it exists: a link (the file, or a directory on the way) is
 * resolved, so a name outside the repository cannot stand for a file inside it.
 */
function realFile(path: string): string {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...rest);
    } catch {
      if (dirname(at) === at) return path;
      rest.unshift(basename(at));
    }
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
