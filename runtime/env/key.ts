// The content key of a project environment: sha256 over everything the image is built from — the
// base image id (which fixes the Debian release and Python), the resolved plan (requirements,
// markers evaluated, the bytes' hashes of every dependency file read, lockfiles, the recipe), the
// effective pip settings, the wheelhouse listings, the setup commands, and the project's build
// files. Nothing else: editing README.md or a test keeps the key; editing a requirements file, the
// recipe or pyproject.toml changes it.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoFile } from '../host/inside-repo.js';
import { pipKeyPart, type PipSettings } from './pip-settings.js';
import type { EnvPlan } from './plan/types.js';

/** Bumped when the build procedure changes what an image holds. */
const BUILD_VERSION = 2;
const BUILD_FILES = ['pyproject.toml', 'setup.py', 'setup.cfg'];

export function environmentKey(input: {
  plan: EnvPlan;
  baseImageId: string;
  pip: PipSettings;
  setup: string[];
  repoRoot: string;
}): string {
  const { plan } = input;
  const material = {
    v: BUILD_VERSION,
    base: input.baseImageId,
    python: plan.python,
    project: plan.project,
    requirements: plan.requirements.map((q) => [q.line, q.debian]),
    apt: plan.apt,
    inputs: plan.inputs.map((i) => [i.path, i.sha256]),
    pip: pipKeyPart(input.pip),
    wheelhouses: input.pip.findLinkDirs.map(listing),
    setup: input.setup,
    buildFiles: BUILD_FILES.map((f) => [f, fileHash(realpathSync(input.repoRoot), f)]),
  };
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

/** A build file's hash; read only as a regular file inside the repository (never a FIFO or a link out). */
function fileHash(realRoot: string, rel: string): string | null {
  const bytes = readRepoFile(realRoot, rel);
  return Buffer.isBuffer(bytes) ? createHash('sha256').update(bytes).digest('hex') : null;
}

/** Name, size and mtime of each file of a wheel directory (cheap, and changes when a wheel does). */
function listing(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name));
      return `${name}:${st.size}:${Math.floor(st.mtimeMs)}`;
    });
}
