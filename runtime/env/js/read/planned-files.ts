// The files the plan names (manifests, the lockfile), read again when the download box is filled:
// through the host's guarded read (regular files inside the repository), and refused unless they
// still hash to what the planner read, so the box gets exactly the bytes the plan was made from.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { readRepoFile } from '../../../host/inside-repo.js';

export function readPlanned(repoRoot: string, f: { path: string; sha256: string }): Buffer {
  const bytes = readRepoFile(realpathSync(repoRoot), f.path, 'any');
  if (!Buffer.isBuffer(bytes)) throw new Error(`${f.path} could not be read: ${bytes.error}`);
  if (createHash('sha256').update(bytes).digest('hex') !== f.sha256)
    throw new Error(`${f.path} changed since the environment was planned`);
  return bytes;
}
