// The labels that name a container's owner: the process (host:pid:start) and, when that process runs
// inside a container, that container's id. The start-up sweep (orphans.ts) judges an owner inside a
// container by whether its container still runs, since its pid means nothing on another host: a
// container piper creates without the second label outlives a killed CI job forever.
import { LABEL } from './hardening.js';
import { ownContainerId } from './owner.js';

export function ownerLabels(owner: string): Record<string, string> {
  const container = ownContainerId();
  return { [LABEL.owner]: owner, ...(container ? { [LABEL.ownerContainer]: container } : {}) };
}
