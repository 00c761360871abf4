// How big run_test's writable work dir is: it follows the snapshot (twice its size, at least the
// default), within a cap. A snapshot over the cap fails before any container exists, saying how
// big it is, what the cap is and which setting raises it. tmpfs pages count against the
// container's memory, so memory grows with the snapshot too.
import { RuntimeError } from '../runtime/errors.js';
import type { Limits } from '../runtime/sandbox/spec.js';

/** The cap when nothing sets one, MiB. */
const DEFAULT_WORKSPACE_CAP_MB = 2048;
const WORKSPACE_CAP_ENV = 'PIPER_RUN_TEST_TMPFS_MAX_MB';

const MIB = 1024 * 1024;

/** The cap: the caller's, else PIPER_RUN_TEST_TMPFS_MAX_MB, else 2048 MiB. */
export function workspaceCapMb(explicit?: number, env: NodeJS.ProcessEnv = process.env): number {
  if (explicit !== undefined) return explicit;
  const fromEnv = Number(env[WORKSPACE_CAP_ENV]);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? Math.floor(fromEnv) : DEFAULT_WORKSPACE_CAP_MB;
}

/**
 * The limits for a snapshot of `bytes` (in `files` files): `base` unchanged while the snapshot
 * fits the default tmpfs with room to spare (so pooled containers still fit), else a larger tmpfs
 * and memory. Throws RuntimeError('bad_spec') over the cap.
 */
export function workspaceLimits(
  base: Pick<Limits, 'tmpfsMb' | 'memoryMb'>,
  snapshot: { bytes: number; files: number },
  capMb: number,
): Pick<Limits, 'tmpfsMb' | 'memoryMb'> {
  const snapshotMb = Math.ceil(snapshot.bytes / MIB);
  if (snapshotMb > capMb) {
    throw new RuntimeError(
      'bad_spec',
      `the repository snapshot is ${formatSize(snapshot.bytes)} (${snapshot.files} files), over run_test's work-space cap of ${capMb} MiB; no container was started`,
      `raise the cap with ${WORKSPACE_CAP_ENV}=${Math.max(capMb + 1, 2 * snapshotMb)} (MiB), or leave large files out of the snapshot with .gitignore`,
    );
  }
  const tmpfsMb = Math.min(capMb, Math.max(base.tmpfsMb, 2 * snapshotMb));
  if (tmpfsMb === base.tmpfsMb) return { ...base };
  return { tmpfsMb, memoryMb: base.memoryMb + snapshotMb };
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * MIB) return `${(bytes / (1024 * MIB)).toFixed(2)} GiB`;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
