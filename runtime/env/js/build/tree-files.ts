// What the networked download gets of the repository: the plan's manifests and lockfile, read
// again by the planner's side and checked against the plan's hashes (read/planned-files.ts), and its
// sanitized configuration files as the planner wrote them — as data in a tar, never the tree.
import { Readable } from 'node:stream';
import { padding, TAR_END, tarHeader } from '../../../workspace/tar-header.js';
import type { Shortfall } from '../../build/shortfall.js';
import type { JsPlan } from '../plan/js-plan.js';
import { readPlanned } from '../read/planned-files.js';
import { lockPinsGit, withoutGitDeps } from './git-deps.js';

export interface TreeFiles {
  files: { path: string; data: Buffer }[];
  shortfalls: Shortfall[];
  /** Whether the lockfile is followed exactly (false: none, or git dependencies were taken out). */
  locked: boolean;
  /** The lockfile pins a git dependency none of the manifests names: it cannot be left out. */
  lockedGit: boolean;
}

/** A repo-relative path the plan names: '/'-separated, inside the tree. */
function safe(path: string): string {
  const parts = path.split('/');
  if (!path || path.startsWith('/') || parts.some((p) => p === '..' || p === '' || p === '.'))
    throw new Error(`the plan names a path outside the repository: ${JSON.stringify(path)}`);
  return path;
}

export function treeFiles(repoRoot: string, plan: JsPlan): TreeFiles {
  const files: TreeFiles['files'] = [];
  const shortfalls: Shortfall[] = [];
  for (const m of plan.manifests) {
    const out = withoutGitDeps(m.path, readPlanned(repoRoot, { ...m, path: safe(m.path) }).toString('utf8'));
    shortfalls.push(...out.shortfalls);
    files.push({ path: m.path, data: Buffer.from(out.text) });
  }
  let lockedGit = false;
  if (plan.lockfile) {
    const data = readPlanned(repoRoot, { ...plan.lockfile, path: safe(plan.lockfile.path) });
    lockedGit = !shortfalls.length && lockPinsGit(data.toString('utf8'));
    files.push({ path: plan.lockfile.path, data });
  }
  for (const c of plan.configFiles) files.push({ path: safe(c.path), data: Buffer.from(c.text) });
  return { files, shortfalls, locked: plan.lockfile !== null && !shortfalls.length, lockedGit };
}

/** The files as a tar to unpack in the tree's directory (directories made as needed, root's, 0755). */
export function treeTar(files: TreeFiles['files']): Readable {
  const parts: Buffer[] = [];
  const dirs = new Set<string>();
  for (const f of files) {
    const segments = f.path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      parts.push(tarHeader({ name: dir, type: 'directory', mode: 0o755 }));
    }
    parts.push(tarHeader({ name: f.path, type: 'file', mode: 0o644, size: f.data.length }));
    parts.push(f.data, Buffer.alloc(padding(f.data.length)));
  }
  parts.push(TAR_END);
  return Readable.from([Buffer.concat(parts)]);
}
