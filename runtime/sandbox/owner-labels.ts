// The labels that name a container's owner: the process (host:pid:start) and, when that process runs
// inside a container, that container's id. The start-up sweep (orphans.ts) judges an owner inside a
// container by whether its container still runs, since its pid means nothing on another host: a
// container piper creates without the second label outlives a killed CI job forever. The second
// label is always set, empty on a host: a container inherits its image's labels, and an image
// committed from a build box (a Debian layer, an environment) carries the box's, so a layer built by
// a piper in a container would otherwise name that container as the owner of every later box and
// sandbox made FROM it, and the first sweep after that container ended would remove them mid-run.
import { LABEL } from './hardening.js';
import { ownContainerId } from './owner.js';

export function ownerLabels(owner: string): Record<string, string> {
  return { [LABEL.owner]: owner, [LABEL.ownerContainer]: ownContainerId() ?? '' };
}
