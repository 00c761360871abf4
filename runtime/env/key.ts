// The content key of a project environment: sha256 over everything the image is built from — the
// base image id (which fixes the Debian release and Python), the resolved plan (requirements,
// markers evaluated, the bytes' hashes of every dependency file read, lockfiles, the recipe), the
// effective pip settings, the wheelhouse listings, the setup commands, and the project's build
// files. Nothing else: editing README.md or a test keeps the key; editing a requirements file, the
// recipe or pyproject.toml changes it. Trusted setup commands run with no allowance on what they
// leave (project-phase.ts), so with them the key also covers every file of the snapshot: their
// output can depend on any of it.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { planSnapshot } from '../workspace/snapshot.js';
import { readRepoFile } from '../host/inside-repo.js';
import { pipKeyPart, type PipSettings } from './pip-settings.js';
import type { EnvPlan } from './plan/types.js';

/** Bumped when the build procedure changes what an image holds. */
// 4: the image records its pytest plugins (a label), which the run side needs.
// 5: the venv's bin holds launchers for the test runners (venv-launchers.ts).
const BUILD_VERSION = 5;
const BUILD_FILES = ['pyproject.toml', 'setup.py', 'setup.cfg'];

export function environmentKey(input: {
  plan: EnvPlan;
  baseImageId: string;
  pip: PipSettings;
  setup: string[];
  repoRoot: string;
  strict: boolean;
  /** Compiled parts: built from (and so keyed by) the whole workspace. */
  native?: boolean;
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
    wheelhouses: input.pip.repoWheelDirs.map(listing),
    userWheels: input.pip.userWheelDirs.map(statListing),
    setup: input.setup,
    strict: input.strict,
    buildFiles: BUILD_FILES.map((f) => [f, fileHash(realpathSync(input.repoRoot), f)]),
    snapshot: input.setup.length || input.native ? snapshotHash(input.repoRoot) : null,
  };
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

/** A build file's hash; read only as a regular file inside the repository (never a FIFO or a link out). */
function fileHash(realRoot: string, rel: string): string | null {
  const bytes = readRepoFile(realRoot, rel);
  return Buffer.isBuffer(bytes) ? createHash('sha256').update(bytes).digest('hex') : null;
}

/**
 * Name and sha256 of each wheel of a wheel directory: its content, not its mtime — the image holds
 * what these wheels install, so another wheel under the same name and size must not be a hit.
 */
function listing(dir: string): string[] {
  const root = realpathSync(dir);
  // The repository's files: read only as regular files inside it (a FIFO named x.whl would block,
  // a link would read outside); such an entry is never copied in either (snapshot rules).
  return readdirSync(root)
    .filter((name) => name.endsWith('.whl'))
    .sort()
    .map((name) => {
      const bytes = readRepoFile(root, name);
      return `${name}:${Buffer.isBuffer(bytes) ? createHash('sha256').update(bytes).digest('hex') : bytes.error}`;
    });
}

/**
 * The user's own wheel directories (their pip configuration's find-links) can be machine-wide and
 * large: their name, size and mtime, as a cache would, not their content.
 */
function statListing(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.whl'))
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name));
      return `${name}:${st.size}:${Math.floor(st.mtimeMs)}`;
    });
}

/** Every snapshot file's path and content hash, in order (the snapshot's own rules: no link out, no FIFO). */
function snapshotHash(repoRoot: string): string {
  const plan = planSnapshot(repoRoot);
  const hash = createHash('sha256');
  for (const entry of plan.entries) {
    hash.update(`${entry.kind}\0${entry.path}\0`);
    if (entry.kind === 'symlink') hash.update(entry.linkname);
    else {
      const bytes = readRepoFile(plan.root, entry.path);
      hash.update(Buffer.isBuffer(bytes) ? bytes : bytes.error);
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}
