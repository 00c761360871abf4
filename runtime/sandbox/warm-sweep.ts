// The start-up sweep of warm containers (warm-container.ts), the safety net under their own idle
// exit: one that never started (its maker died between create and start), one that stopped but was
// not removed, and one still unclaimed past its idle time (its command should have exited) are
// removed. A claimed one that runs is its claimer's call, however long it takes, and is left alone.
import type { ContainerSummary, DockerEngine } from '../engine/docker-engine.js';
import { LABEL } from './hardening.js';
import { removeOrReport, type Report } from './removal.js';
import { WARM_PREFIX } from './warm-container.js';

/** A container this young may still be starting (another process is leaving it right now). */
const GRACE_MS = 60_000;

/** Removes the stale warm containers; resolves with their ids. `nowMs` is this host's clock. */
export async function sweepWarm(engine: DockerEngine, report: Report, nowMs = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const c of await engine.listContainers([LABEL.warm])) {
    if (!stale(c, nowMs)) continue;
    if (await removeOrReport(engine, c.id, report)) removed.push(c.id);
  }
  return removed;
}

function stale(c: ContainerSummary, nowMs: number): boolean {
  if (c.state !== 'running') return nowMs - c.created * 1000 > GRACE_MS;
  if (!c.names.some((name) => name.startsWith(WARM_PREFIX))) return false;
  const expires = Number(c.labels[LABEL.warmExpires]);
  return !Number.isFinite(expires) || nowMs > expires + GRACE_MS;
}
