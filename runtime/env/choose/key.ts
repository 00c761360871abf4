// The content keys of a project environment. The declarations key (`environmentKey`): sha256 over
// everything the dependency image is built from — the base image id (which fixes the Debian release
// and Python), the resolved plan (requirements, markers evaluated, the bytes' hashes of every
// dependency file read, lockfiles, the recipe), the effective pip settings, the wheelhouse
// listings, the setup commands, the project's build files and the compiled parts' build tools. No
// repository code runs in that image, so editing README.md or a test keeps it; editing a
// requirements file, the recipe or pyproject.toml changes it. Everything the project's own build
// code produced (files, and what piper parsed from them) can depend on any file it could read, so
// the environment image that holds it is keyed by the whole snapshot too (`checkoutKey`): nothing
// one checkout's build wrote or said reaches a run of another checkout.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { planSnapshot } from '../../workspace/snapshot.js';
import { readRepoFile } from '../../host/inside-repo.js';
import { pipKeyPart, type PipSettings } from '../plan/pip-settings.js';
import type { EnvPlan } from '../plan/types.js';

/** Bumped when the build procedure changes what an image holds. */
// 4: the image records its pytest plugins (a label), which the run side needs.
// 5: the venv's bin holds launchers for the test runners (venv-launchers.ts).
// 6: the project layer is written by piper from parsed data, keyed by the snapshot, with the
// build's generated files.
const BUILD_VERSION = 6;
const BUILD_FILES = ['pyproject.toml', 'setup.py', 'setup.cfg'];

export function environmentKey(input: {
  plan: EnvPlan;
  baseImageId: string;
  pip: PipSettings;
  setup: string[];
  repoRoot: string;
  strict: boolean;
  /** Compiled parts: the Debian packages their build step installs (native.ts). */
  nativeApt?: string[] | null;
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
    nativeApt: input.nativeApt ?? null,
  };
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

/** The key of an image that holds what the project's build produced: the declarations and every snapshot file. */
export function checkoutKey(declarationsKey: string, repoRoot: string): string {
  return createHash('sha256')
    .update(`${declarationsKey}\0${snapshotHash(repoRoot)}`)
    .digest('hex');
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
