// Files piper creates in a checkout belong to the checkout's owner. In CI piper
// often runs as root in a container on a checkout owned by the runner's uid (1000, say); a
// root-owned `.piper/`, ledger or lock then breaks the job's next step (a `git commit` or a cache
// upload as the runner user). So when piper runs as root, whatever it creates takes the owner of
// the directory it is created in — the repository root for `.piper/`, `.piper/` for what is in it.
// Run as any other user nothing changes hands: a non-root process cannot give a file away, and
// what it creates is its user's already.
import { lchownSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface FileOwner {
  uid: number;
  gid: number;
}

const runningAsRoot = (): boolean => process.getuid?.() === 0;

/**
 * The owner that files created in `dir` should get: `dir`'s own, when this process runs as root
 * and that owner is someone else; null when there is nothing to do.
 */
export function ownerToAdopt(dir: string): FileOwner | null {
  if (!runningAsRoot()) return null;
  try {
    const { uid, gid } = statSync(dir);
    return uid === 0 && gid === process.getgid?.() ? null : { uid, gid };
  } catch {
    return null;
  }
}

/**
 * Gives `path` (not a link's target) to `owner`; null does nothing. Best effort: a root that may
 * not chown (NFS root_squash, a user namespace without the uid mapped) still gets its work done,
 * with the files left as they were created rather than the run failing over ownership.
 */
export function adoptOwner(path: string, owner: FileOwner | null): void {
  if (owner === null) return;
  try {
    lchownSync(path, owner.uid, owner.gid);
  } catch {
    // See above: ownership is a courtesy to the next step, not a reason to stop.
  }
}

/**
 * `mkdir -p dir` where every directory it creates takes the owner of the nearest directory that
 * already existed, and `mode` (before the umask). Returns the owner files created in `dir` should
 * get (as ownerToAdopt(dir)).
 */
export function makeOwnedDirectory(dir: string, mode?: number): FileOwner | null {
  const target = resolve(dir);
  const first = mkdirSync(target, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  if (first !== undefined) {
    const owner = ownerToAdopt(dirname(first));
    // mkdir -p created `first` and everything below it on the way to `target`.
    for (let d = target; d.length >= first.length; d = dirname(d)) {
      adoptOwner(d, owner);
      if (d === first) break;
    }
  }
  return ownerToAdopt(target);
}
