// What the build needs of the repository beyond the dependency plan, read here so that the builder
// never reads the repository itself: whether it has compiled parts (native.ts), the version its
// VCS gives (vcs-version.ts), the bytes' hashes of its build files, the wheels of its wheel
// directories (and of the user's), and the whole snapshot's hash, which keys what its build code
// produces. All of it goes into the build spec (choose/build-spec.ts), so all of it is in the key.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoFile } from '../../host/inside-repo.js';
import { repoFileSha256, snapshotContentKey } from '../../workspace/content-key.js';
import { planSnapshot } from '../../workspace/snapshot.js';
import { detectNative, type NativeBuild } from './native.js';
import type { EnvPlan } from './types.js';
import { projectInstallFor, type ProjectVersion } from './vcs-version.js';

/** One wheel directory: the `.whl` files the build copies in, each with its hash (repository) or stat (user). */
export interface WheelDir {
  dir: string;
  wheels: Array<{ file: string; size: number; hash: string }>;
}

export interface BuildFacts {
  native: NativeBuild | null;
  version: ProjectVersion;
  buildFiles: Array<{ path: string; sha256: string | null }>;
  repoWheels: WheelDir[];
  userWheels: WheelDir[];
  /** The snapshot's content key (workspace/content-key.ts); null when no repository code runs in the build. */
  snapshot: string | null;
}

const BUILD_FILES = ['pyproject.toml', 'setup.py', 'setup.cfg'];

export function readBuildFacts(
  repoRoot: string,
  plan: EnvPlan,
  pip: { repoWheelDirs: string[]; userWheelDirs: string[] },
  runsProjectCode: boolean,
): BuildFacts {
  const root = realpathSync(repoRoot);
  return {
    native: detectNative(repoRoot, plan),
    version: runsProjectCode ? projectInstallFor(repoRoot, plan.project.name) : {},
    // Whole, whatever their size: a read cap would give every build file over it one hash, null.
    buildFiles: BUILD_FILES.map((path) => ({ path, sha256: repoFileSha256(root, path) })),
    repoWheels: pip.repoWheelDirs.map(repoWheelDir),
    userWheels: pip.userWheelDirs.map(userWheelDir),
    snapshot: runsProjectCode ? snapshotContentKey(planSnapshot(repoRoot)) : null,
  };
}

function sha256Of(bytes: Buffer | { error: string }): string | null {
  return Buffer.isBuffer(bytes) ? createHash('sha256').update(bytes).digest('hex') : null;
}

/**
 * The repository's wheels, by content: the image holds what they install, so another wheel under
 * the same name and size must not be a hit. Read only as regular files inside it (a FIFO named
 * x.whl would block, a link would read outside); such an entry is left out.
 */
function repoWheelDir(dir: string): WheelDir {
  const root = realpathSync(dir);
  const wheels: WheelDir['wheels'] = [];
  for (const file of wheelNames(root)) {
    const bytes = readRepoFile(root, file);
    if (!Buffer.isBuffer(bytes)) continue;
    wheels.push({ file, size: bytes.length, hash: sha256Of(bytes)! });
  }
  return { dir: root, wheels };
}

/**
 * The user's own wheel directories (their pip configuration's find-links) can be machine-wide and
 * large: their name, size and mtime, as a cache would, not their content.
 */
function userWheelDir(dir: string): WheelDir {
  const wheels = wheelNames(dir).flatMap((file) => {
    const st = statSync(join(dir, file));
    return st.isFile() ? [{ file, size: st.size, hash: `mtime:${Math.floor(st.mtimeMs)}` }] : [];
  });
  return { dir, wheels };
}

function wheelNames(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.whl') && !name.includes('/'))
    .sort();
}
