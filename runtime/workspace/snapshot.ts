// The repository as the sandbox sees it: the files of the repository listing (repo-listing.ts:
// tracked plus untracked files git does not ignore, or a walk outside git; never .git, piper's
// data, environments, caches or build output), streamed as a tar (no host path is mounted).
//
// Only regular files and symbolic links that resolve inside the repository are packed. The rest
// is skipped and named in `skipped`: submodules and nested repositories (directories), FIFOs,
// sockets and devices (opening one could block forever), links that leave the repository or
// dangle, paths under a directory link, unreadable files. Sizes are known before any container
// exists, so a snapshot too big for the sandbox fails first. Files are read when packed, so the
// snapshot is the working tree as it is at that moment, edits included.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { isWithin, RealDirs } from '../host/inside-repo.js';
import { kindOf } from '../host/open-regular.js';
import { packFiles, type SnapshotEntry } from './pack-files.js';
import { compare, listRepoFiles, type SkippedEntry } from './repo-listing.js';

export type { SkippedEntry, SnapshotEntry };

export interface SnapshotPlan {
  /** The repository root with its symbolic links resolved: every entry is read below it. */
  root: string;
  entries: SnapshotEntry[];
  skipped: SkippedEntry[];
  /** Bytes of the unpacked snapshot: the files' sizes (what the work tmpfs must hold). */
  bytes: number;
}

/** What would be packed, and what is skipped with why; nothing is opened. */
export function planSnapshot(repoRoot: string): SnapshotPlan {
  const root = realpathSync(repoRoot);
  const listing = listRepoFiles(root);
  const skipped: SkippedEntry[] = [...listing.skipped];
  const dirs = new RealDirs(root);
  const entries: SnapshotEntry[] = [];
  let bytes = 0;
  for (const path of listing.paths) {
    const entry = classify(root, dirs, path);
    if (entry === null) continue; // gone from disk (deleted but still tracked): not in the snapshot
    if ('reason' in entry) {
      skipped.push(entry);
      continue;
    }
    if (entry.kind === 'file') bytes += entry.size;
    entries.push(entry);
  }
  skipped.sort((a, b) => compare(a.path, b.path));
  return { root, entries, skipped, bytes };
}

/** The repo-relative paths a snapshot packs, sorted. */
export function snapshotFiles(repoRoot: string): string[] {
  return planSnapshot(repoRoot).entries.map((e) => e.path);
}

export interface Snapshot extends SnapshotPlan {
  files: string[];
  /**
   * The tar. `skipped` grows while it is read (a file that vanishes or turns into something else
   * between the plan and its packing); it is complete once the stream has ended.
   */
  tar: Readable;
}

export function snapshotTar(repoRoot: string | SnapshotPlan): Snapshot {
  const plan = typeof repoRoot === 'string' ? planSnapshot(repoRoot) : repoRoot;
  return {
    ...plan,
    files: plan.entries.map((e) => e.path),
    tar: packFiles(plan.root, plan.entries, plan.skipped),
  };
}

/** One line for a result: `[snapshot: skipped 2 entries: vendor/sub (submodule), pipe (fifo)]`, or ''. */
export function skippedNote(skipped: SkippedEntry[], shown = 10): string {
  if (skipped.length === 0) return '';
  const named = skipped.slice(0, shown).map((s) => `${s.path} (${s.reason})`);
  const more = skipped.length > shown ? `, and ${skipped.length - shown} more` : '';
  const noun = skipped.length === 1 ? 'entry' : 'entries';
  return `[snapshot: skipped ${skipped.length} ${noun}: ${named.join(', ')}${more}]`;
}

/** A packable entry, a skip with its reason, or null when the path is not on disk. */
function classify(root: string, dirs: RealDirs, path: string): SnapshotEntry | SkippedEntry | null {
  if (!dirs.parentIsPlain(path)) {
    if (dirs.parentOf(path) === null) return null;
    return {
      path,
      reason: dirs.parentIsInside(path)
        ? 'under a symlinked directory'
        : 'outside the repository, through a symlinked directory',
    };
  }
  const full = join(root, path);
  let st;
  try {
    st = lstatSync(full);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : { path, reason: 'unreadable' };
  }
  if (st.isFile()) return { path, kind: 'file', size: st.size };
  if (st.isSymbolicLink()) return classifyLink(root, path, full);
  if (st.isDirectory()) return { path, reason: hasGit(full) ? 'nested repository' : 'directory' };
  return { path, reason: kindOf(st) };
}

/** A link is packed when its target resolves inside the repository (as a relative link if absolute). */
function classifyLink(root: string, path: string, full: string): SnapshotEntry | SkippedEntry {
  let target: string;
  try {
    target = realpathSync.native(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { path, reason: code === 'ENOENT' ? 'dangling symlink' : 'unresolvable symlink' };
  }
  if (!isWithin(root, target)) return { path, reason: 'symlink to outside the repository' };
  const linkname = readlinkSync(full);
  // An absolute target names the host's path, which does not exist in the sandbox.
  return {
    path,
    kind: 'symlink',
    linkname: isAbsolute(linkname) ? relative(dirname(full), target) || '.' : linkname,
  };
}

function hasGit(dir: string): boolean {
  try {
    lstatSync(join(dir, '.git'));
    return true;
  } catch {
    return false;
  }
}
