// The start-up sweep of the engine: containers carrying our owner label whose owner process is
// gone (killed, crashed) are removed. An owner that ran inside a container on this engine (the CI
// image) is gone when that container is; owners on other hosts are left alone (see ownerAlive).
// One the engine will not remove is reported and the sweep goes on: it is tried again next time.
// Warm containers left for the next one-shot command are removed only when stale (warm-sweep.ts).
import type { DockerEngine } from '../engine/docker-engine.js';
import { LABEL } from './hardening.js';
import { ownContainerId, ownerAlive, parseOwner } from './owner.js';
import { removeOrReport, reportToStderr, type Report } from './removal.js';
import { sweepWarm } from './warm-sweep.js';

export interface RemovedOrphan {
  containerId: string;
  run: string;
  call: string;
  owner: string;
}

export async function removeOrphans(
  engine: DockerEngine,
  report: Report = reportToStderr,
): Promise<RemovedOrphan[]> {
  const containers = await engine.listContainers([LABEL.owner]);
  const removed: RemovedOrphan[] = [];
  for (const c of containers) {
    const ownerText = c.labels[LABEL.owner] ?? '';
    const owner = parseOwner(ownerText);
    if (!owner) continue;
    // An owner that ran inside a container on this engine is gone when that container is.
    const ownerContainer = c.labels[LABEL.ownerContainer];
    // From inside a container, a pid of the host (an owner without that label) cannot be judged:
    // this container's processes are all /proc shows, and its hostname may be the host's.
    if (!ownerContainer && ownContainerId() !== null) continue;
    const gone =
      ownerContainer && ownerContainer !== ownContainerId()
        ? !(await runningContainer(engine, ownerContainer))
        : !ownerAlive(owner);
    if (!gone) continue;
    if (!(await removeOrReport(engine, c.id, report))) continue;
    removed.push({
      containerId: c.id,
      run: c.labels[LABEL.run] ?? '',
      call: c.labels[LABEL.call] ?? '',
      owner: ownerText,
    });
  }
  // Warm containers have no owner process; the stale ones go too (warm-sweep.ts).
  for (const id of await sweepWarm(engine, report)) {
    removed.push({ containerId: id, run: 'warm', call: 'warm', owner: '' });
  }
  return removed;
}

async function runningContainer(engine: DockerEngine, id: string): Promise<boolean> {
  try {
    return (await engine.inspect(id)).running;
  } catch (error) {
    // Only "no such container" says it is gone: an engine that fails the inspect under load says
    // nothing of it, and its containers stay for the next sweep.
    return (error as { cause?: { statusCode?: number } }).cause?.statusCode !== 404;
  }
}

export function ownerTextAlive(text: string): boolean {
  const owner = parseOwner(text);
  return owner ? ownerAlive(owner) : true;
}
