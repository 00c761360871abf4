// A snapshot the regression gate keeps: the repository as it was when the run started (its base) or
// when the loop ended (its final state), packed once into memory so the same bytes can go into a
// sandbox twice (the whole suite, then, over budget, the affected files), with a key of its content
// alone (kinds, paths and bytes, not mtimes) so a second fix on the same tree finds the first one's
// base run, and no other tree does (runtime/workspace/content-key.ts).
import { runTestTool } from '../tools/run-test/tool.js';
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { snapshotContentKey } from '../../runtime/workspace/content-key.js';
import { planSnapshot, snapshotTar } from '../../runtime/workspace/snapshot.js';
import type { Limits } from '../../runtime/sandbox/spec.js';
import { workspaceCapMb, workspaceLimits } from '../workspace-size.js';

export interface KeptSnapshot {
  tar: Buffer;
  /** The snapshot's content key: every packed entry's kind, path and whole content (a link: its target), length-framed. */
  contentKey: string;
  /** sha256 of the tar itself: two snapshots of one tree in one run are equal iff this is. */
  tarKey: string;
  files: string[];
  sized: Pick<Limits, 'tmpfsMb' | 'memoryMb'>;
  /** The repository root as read: test files are read from here while it still holds this state. */
  root: string;
}

/** Packs the repository now; throws (like run_test) when it is over the work-space cap, or cannot be keyed. */
export async function keepSnapshot(repoRoot: string): Promise<KeptSnapshot> {
  const plan = planSnapshot(repoRoot);
  const sized = workspaceLimits(
    runTestTool.limits,
    { bytes: plan.bytes, files: plan.entries.length },
    workspaceCapMb(),
  );
  // Throws, like the cap, when a file cannot be read whole: a key without it would be another tree's.
  const contentKey = snapshotContentKey(plan);
  const snapshot = snapshotTar(plan);
  const tar = await buffer(snapshot.tar);
  return {
    tar,
    contentKey,
    tarKey: createHash('sha256').update(tar).digest('hex'),
    files: snapshot.files,
    sized,
    root: plan.root,
  };
}
