// One live run per repository. Two runs on one checkout each read a file, each
// edit it, and each report `edit: committed` while only one edit survives. `fix`, `resume` and
// `undo` therefore hold `<repo>/.piper/run.lock` while they work: a small JSON file naming the
// owner (host, pid, process start time — a recycled pid is not the owner) and its run id.
//
// - Created atomically with its content: written to a temp file, then hard-linked to the lock
//   path, which fails if the lock exists (the O_EXCL guarantee, but never an empty lock another
//   process could read half-written). Where hard links are refused, an O_EXCL create.
// - Released on every exit: the command's finally, and a synchronous 'exit' handler for
//   process.exit() (the SIGINT/SIGTERM handlers of core/session.ts end that way) and crashes.
// - Taken over only from a dead owner: pid gone or its start time differs. An owner on another
//   host cannot be judged from here and counts as alive (runtime/sandbox/owner.ts). Taking over
//   renames the stale file away first and checks it moved the very file it judged, so two
//   processes racing for a stale lock cannot both win.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { currentOwner, ownerAlive } from '../sandbox/owner.js';
import { adoptOwner, type FileOwner } from './checkout-owner.js';
import { makeStateDirectory } from './piper-directory.js';

export interface RepoLockHolder {
  host: string;
  pid: number;
  /** Process start time in clock ticks since boot ('' where unknown). */
  started: string;
  /** The run it works on; null while a new run's id is not yet assigned. */
  run_id: string | null;
  /** fix, resume, undo, demo. */
  command: string;
  acquired_at: string;
  /** Tells this acquisition from any other, so release and takeover never remove another's lock. */
  nonce: string;
}

/** Another run holds the repository. The CLI reports it as a usage error (exit 2). */
export class RepoBusyError extends Error {
  constructor(
    readonly repo: string,
    readonly holder: RepoLockHolder,
    readonly lockPath: string,
  ) {
    const run = holder.run_id ? `run ${holder.run_id}` : `a ${holder.command} run (no run id yet)`;
    super(
      `another piper-agent run is live on ${repo}: ${run}, ${holder.command} by pid ${holder.pid} on ${holder.host} since ${holder.acquired_at}`,
    );
    this.name = 'RepoBusyError';
  }

  get fix(): string {
    return `wait for it to end, or stop it (kill ${this.holder.pid}); a lock left by a process that died is taken over by the next run (${this.lockPath})`;
  }
}

export function repoLockPath(repo: string): string {
  return join(repo, '.piper', 'run.lock');
}

/** The current holder of a repository's lock, or null (no lock, or unreadable). */
export function readRepoLock(repo: string): RepoLockHolder | null {
  return parseHolder(readText(repoLockPath(repo)));
}

export class RepoLock {
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(
    readonly path: string,
    private holder: RepoLockHolder,
    private readonly fileOwner: FileOwner | null,
  ) {
    process.on('exit', this.onExit);
  }

  /** Takes the repository's lock, or throws RepoBusyError naming the live run that holds it. */
  static acquire(repo: string, opts: { command: string; runId?: string | null }): RepoLock {
    const path = repoLockPath(repo);
    // Run as root on someone else's checkout, `.piper/` and the lock are theirs (checkout-owner.ts).
    const fileOwner = makeStateDirectory(join(repo, '.piper'));
    const owner = currentOwner();
    const holder: RepoLockHolder = {
      host: owner.host,
      pid: owner.pid,
      started: owner.started,
      run_id: opts.runId ?? null,
      command: opts.command,
      acquired_at: new Date().toISOString(),
      nonce: randomBytes(8).toString('hex'),
    };
    // A few rounds: each lost race (a takeover, a release in between) is followed by a fresh look.
    for (let round = 0; round < 8; round++) {
      if (createExclusive(path, serialize(holder), fileOwner)) return new RepoLock(path, holder, fileOwner);
      const text = readText(path);
      if (text === null) continue; // released in between
      const current = parseHolder(text);
      if (current && isAlive(current)) throw new RepoBusyError(repo, current, path);
      takeOver(path, text);
    }
    const current = readRepoLock(repo);
    if (current) throw new RepoBusyError(repo, current, path);
    throw new Error(`could not take the run lock ${path}: it keeps changing`);
  }

  get runId(): string | null {
    return this.holder.run_id;
  }

  /** Names the run once its id exists (a new fix run gets it after the lock is taken). */
  setRunId(runId: string): void {
    if (this.released || this.holder.run_id === runId) return;
    if (parseHolder(readText(this.path))?.nonce !== this.holder.nonce) return;
    this.holder = { ...this.holder, run_id: runId };
    const temp = `${this.path}.${this.holder.nonce}.tmp`;
    writeFileSync(temp, serialize(this.holder), { mode: 0o644 });
    adoptOwner(temp, this.fileOwner);
    renameSync(temp, this.path);
  }

  /** Removes the lock if it is still ours. Idempotent; safe in an 'exit' handler (synchronous). */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.off('exit', this.onExit);
    if (parseHolder(readText(this.path))?.nonce !== this.holder.nonce) return;
    try {
      unlinkSync(this.path);
    } catch {
      // Gone already: nothing to release.
    }
  }
}

function isAlive(holder: RepoLockHolder): boolean {
  return ownerAlive({ host: holder.host, pid: holder.pid, started: holder.started });
}

function serialize(holder: RepoLockHolder): string {
  return `${JSON.stringify(holder)}\n`;
}

function parseHolder(text: string | null): RepoLockHolder | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<RepoLockHolder>;
    if (typeof value.host !== 'string' || typeof value.pid !== 'number' || typeof value.nonce !== 'string')
      return null;
    return {
      host: value.host,
      pid: value.pid,
      started: typeof value.started === 'string' ? value.started : '',
      run_id: typeof value.run_id === 'string' ? value.run_id : null,
      command: typeof value.command === 'string' ? value.command : 'run',
      acquired_at: typeof value.acquired_at === 'string' ? value.acquired_at : '?',
      nonce: value.nonce,
    };
  } catch {
    return null;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Creates `path` with `content` unless it exists; false when it does. */
function createExclusive(path: string, content: string, owner: FileOwner | null): boolean {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o644 });
  adoptOwner(temp, owner); // before the link: the lock never exists with another owner
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    return createWithOpenExcl(path, content, owner);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone.
    }
  }
}

function createWithOpenExcl(path: string, content: string, owner: FileOwner | null): boolean {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return false;
    throw error;
  }
  adoptOwner(path, owner);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Moves a dead owner's lock out of the way. The rename is atomic, so of two processes taking over
 * at once one moves the stale file and the other finds nothing, or a new live lock; a process
 * that moved a lock other than the one it judged dead puts it back.
 */
function takeOver(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else moved or released it: look again
  }
  if (readText(aside) !== staleText) {
    try {
      linkSync(aside, path); // put the live lock back (fails only if yet another lock appeared)
    } catch {
      // A third lock exists now; the one moved aside belonged to a run that will find it gone.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}
