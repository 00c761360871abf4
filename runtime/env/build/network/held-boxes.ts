// Which build boxes hold the user's index files (index-files.ts) right now, and the rule every
// commit keeps with it: a box that holds them never becomes an image. A module of its own, importing
// no part of the build, so BuildBox.commit can ask it without a circle of imports.
import { RuntimeError } from '../../../errors.js';

const holding = new WeakSet<object>();

export function markHolding(box: object): void {
  holding.add(box);
}

export function markReleased(box: object): void {
  holding.delete(box);
}

export function isHolding(box: object): boolean {
  return holding.has(box);
}

/** Called by every commit: a box that holds the files never becomes an image. */
export function refuseCommitHoldingIndexFiles(box: object): void {
  if (holding.has(box))
    throw new RuntimeError(
      'env_build_failed',
      'a build box that holds your index settings (CA bundle, client certificate, netrc) is never committed',
    );
}
