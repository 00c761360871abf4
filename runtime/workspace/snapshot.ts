// The repository as the sandbox sees it: tracked files plus untracked files git does not ignore,
// never .git, streamed as a tar (no host path is mounted). Outside a git repository (or when .git
// is a `gitdir:` file) every file is taken except .git, .piper and virtual environments.
//
// Only regular files and symbolic links that resolve inside the repository are packed. The rest
// is skipped and named in `skipped`: submodules and nested repositories (directories), FIFOs,
// sockets and devices (opening one could block forever), links that leave the repository or
// dangle, paths under a directory link, unreadable files. Sizes are known before any container
// exists, so a snapshot too big for the sandbox fails first. Files are read when packed, so the
// snapshot is the working tree as it is at that moment, edits included.
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { isWithin, RealDirs } from '../host/inside-repo.js';
import { kindOf } from '../host/open-regular.js';
import { gitRead, gitRepoAt, type GitRepo } from '../host/safe-git.js';
import { packFiles } from './pack-files.js';

const SKIP_DIRS = new Set([
  '.git',
  '.piper',
  '.venv',
  'venv',
  '.tox',
  'node_modules',
  '__pycache__',
  '.pytest_cache',
]);

export type SnapshotEntry =
  { path: string; kind: 'file'; size: number } | { path: string; kind: 'symlink'; linkname: string };

export interface SkippedEntry {
  path: string;
  /** submodule, nested repository, fifo, socket, device, unreadable, symlink outside the repository, ... */
  reason: string;
}

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
  const skipped: SkippedEntry[] = [];
  const listed = listFromGit(root, skipped) ?? walk(root, '', skipped);
  const dirs = new RealDirs(root);
  const entries: SnapshotEntry[] = [];
  let bytes = 0;
  for (const path of listed) {
    if (path.split('/').some((part) => part === '.git' || part === '.piper')) continue;
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

/**
 * Tracked (with their modes, so submodules are known) plus untracked-not-ignored paths, or null
 * when git cannot say. Two git processes whatever the repository's size.
 */
function listFromGit(root: string, skipped: SkippedEntry[]): string[] | null {
  const repo: GitRepo | null = gitRepoAt(root);
  if (!repo) return null;
  const cached = gitRead(repo, ['ls-files', '-z', '-s']);
  const others = gitRead(repo, ['ls-files', '-z', '--others', '--exclude-standard']);
  if (cached === null || others === null) return null;
  const paths = new Set<string>();
  for (const line of cached.toString('utf8').split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const path = line.slice(tab + 1);
    // Mode 160000 is a gitlink: a submodule's directory, whose files belong to another repository.
    if (line.startsWith('160000 ')) skipped.push({ path, reason: 'submodule' });
    else paths.add(path);
  }
  for (const path of others.toString('utf8').split('\0')) {
    if (!path) continue;
    // git lists an untracked directory holding its own .git as `dir/` and does not look inside.
    if (path.endsWith('/')) skipped.push({ path: path.slice(0, -1), reason: 'nested repository' });
    else paths.add(path);
  }
  return [...paths].sort(compare);
}

function walk(root: string, rel: string, skipped: SkippedEntry[]): string[] {
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
      if (SKIP_DIRS.has(entry.name) || isVenv(join(root, path))) continue;
      out.push(...walk(root, path, skipped));
    } else {
      out.push(path); // classified (file, link, special) with everything git lists
    }
  }
  return out;
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

function isVenv(dir: string): boolean {
  try {
    return lstatSync(join(dir, 'pyvenv.cfg')).isFile();
  } catch {
    return false;
  }
}

function hasGit(dir: string): boolean {
  try {
    lstatSync(join(dir, '.git'));
    return true;
  } catch {
    return false;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
