// The mark of an image into which downloaded code was installed, and the rule BuildBox.start keeps
// with it: no box with a network starts from such an image (downloaded-code.ts says why). A module
// of its own, importing no part of the build, so the box can ask it without a circle of imports.
import { RuntimeError } from '../../../errors.js';
import { inert } from '../../../text/inert.js';

/** On every image into which downloaded code was installed (inherited by each image made from it). */
export const DOWNLOADED_CODE_LABEL = 'piper.env.downloaded-code';

/** Thrown before a box with a network starts from an image into which downloaded code was installed. */
export function refuseNetworkedFrom(image: string, labels: Record<string, string>): void {
  const mark = labels[DOWNLOADED_CODE_LABEL];
  if (mark === undefined) return;
  throw new RuntimeError(
    'env_build_failed',
    `a build step with a network was to start from ${image}, which holds downloaded code (${DOWNLOADED_CODE_LABEL}=${inert(mark)}): no networked step starts from such an image`,
  );
}
