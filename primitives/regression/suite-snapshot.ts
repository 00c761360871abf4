// A snapshot the regression gate keeps: the repository as it was when the run started (its base) or
// when the loop ended (its final state), packed once into memory so the same bytes can go into a
// sandbox twice (the whole suite, then, over budget, the affected files), with a key of its content
// alone (paths and bytes, not mtimes) so a second fix on the same tree finds the first one's base run.
import { createHash } from 'node:crypto';
import { readRepoFile } from '../../runtime/host/inside-repo.js';
import { buffer } from 'node:stream/consumers';
import { planSnapshot, snapshotTar } from '../../runtime/workspace/snapshot.js';
import type { Limits } from '../../runtime/sandbox/spec.js';
import { workspaceCapMb, workspaceLimits } from '../workspace-size.js';
import { RUN_TEST_LIMITS } from '../tools/run-test/effect.js';

export interface KeptSnapshot {
  tar: Buffer;
  /** sha256 of every packed path and its content (a symlink: its target). */
  contentKey: string;
  /** sha256 of the tar itself: two snapshots of one tree in one run are equal iff this is. */
  tarKey: string;
  files: string[];
  sized: Pick<Limits, 'tmpfsMb' | 'memoryMb'>;
  /** The repository root as read: test files are read from here while it still holds this state. */
  root: string;
}

/** Packs the repository now; throws (like run_test) when it is over the work-space cap. */
export async function keepSnapshot(repoRoot: string): Promise<KeptSnapshot> {
  const plan = planSnapshot(repoRoot);
  const sized = workspaceLimits(
    RUN_TEST_LIMITS,
    { bytes: plan.bytes, files: plan.entries.length },
    workspaceCapMb(),
  );
  const hash = createHash('sha256');
  for (const entry of plan.entries) {
    hash.update(`${entry.path}\0`);
    if (entry.kind === 'symlink') hash.update(`-> ${entry.linkname}\0`);
    else {
      // The one bounded reader: a file swapped for a FIFO or a link out since the listing hashes its refusal.
      const bytes = readRepoFile(plan.root, entry.path);
      hash.update(Buffer.isBuffer(bytes) ? bytes : bytes.error).update('\0');
    }
  }
  const snapshot = snapshotTar(plan);
  const tar = await buffer(snapshot.tar);
  return {
    tar,
    contentKey: hash.digest('hex'),
    tarKey: createHash('sha256').update(tar).digest('hex'),
    files: snapshot.files,
    sized,
    root: plan.root,
  };
}
