// The start-up sweep of the engine: containers carrying our owner label whose owner process is
// gone (killed, crashed) are removed. Owners on another host are left alone (see ownerAlive).
import type { DockerEngine } from '../engine/docker-engine.js';
import { LABEL } from './hardening.js';
import { ownerAlive, parseOwner } from './owner.js';

export interface RemovedOrphan {
  containerId: string;
  run: string;
  call: string;
  owner: string;
}

export async function removeOrphans(engine: DockerEngine): Promise<RemovedOrphan[]> {
  const containers = await engine.listContainers([LABEL.owner]);
  const removed: RemovedOrphan[] = [];
  for (const c of containers) {
    const ownerText = c.labels[LABEL.owner] ?? '';
    const owner = parseOwner(ownerText);
    if (!owner || ownerAlive(owner)) continue;
    await engine.remove(c.id);
    removed.push({
      containerId: c.id,
      run: c.labels[LABEL.run] ?? '',
      call: c.labels[LABEL.call] ?? '',
      owner: ownerText,
    });
  }
  return removed;
}

export function ownerTextAlive(text: string): boolean {
  const owner = parseOwner(text);
  return owner ? ownerAlive(owner) : true;
}
