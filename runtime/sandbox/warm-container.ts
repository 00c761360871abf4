// A container kept warm between one-shot commands (docs/sandbox.md, "Warm between commands"). A
// one-shot `run-test` or `execute` leaves one fresh container for the next command of the same
// image, created by containerConfig exactly as its workspace pool's (the same hardening and
// limits) and as single-use: it serves one call and is gone.
//
// - Found by name, `piper-warm-<key>`: the key hashes the image id, the limits and the runtime, so
//   only a container the next call's own pool could have made matches. One name, one container:
//   a second process leaving one at the same moment is refused by the engine (409) and moves on.
// - Claimed by renaming that name. The engine resolves a name once, so of two processes renaming
//   it only one finds it; the other gets 404 and starts its own container, as without this.
// - Confirmed before use: the claimer attaches and sends a claim line, and the container's command
//   answers it only if it had not given up waiting, so one exiting on its idle time at that very
//   moment is never handed work it would not run.
// - Gone when idle, with no piper-agent process left to remove it: its command exits after idleS
//   seconds unclaimed and the engine removes it (AutoRemove). The start-up sweep (warm-sweep.ts)
//   removes any that did not go (never started, past its time).
import { createHash, randomBytes } from 'node:crypto';
import type { DockerEngine } from '../engine/docker-engine.js';
import { attachContainer, type PreparedContainer } from './container-run.js';
import { LABEL, containerConfig } from './hardening.js';
import { WORKSPACE_ARGV } from './pool.js';
import { removeOrReport, type Report } from './removal.js';
import type { Limits } from './spec.js';

export const WARM_PREFIX = 'piper-warm-';
const CLAIMED_PREFIX = 'piper-claimed-';
const CLAIM_LINE = 'claim\n';
const CLAIMED_ACK = 'piper-warm-claimed\n';
/** A warm container that does not answer its claim in this time is not used (and is removed): generous, as a just-started one on a loaded machine is still importing pytest, and starting another would be slower. */
const CLAIM_TIMEOUT_MS = 20_000;

/** What a warm container must match to serve a call: what its pool's containers are made from. */
export interface WarmKey {
  image: string;
  /** The image's id: a tag rebuilt since the warm container started names another key. */
  imageId: string;
  limits: Limits;
  runtime: string | null;
}

/**
 * The warm container's command: pytest imported first (as workspace.py does before its work
 * arrives), then a wait for the claim line of at most idleS seconds, then workspace.py itself in
 * this interpreter. Nothing is written before the claim, so the claimer misses no output.
 */
const WARM_ENTRY = [
  'import runpy, select, sys',
  'import pytest',
  'if not select.select([0], [], [], float(sys.argv[1]))[0]:',
  '    sys.exit(0)',
  `if sys.stdin.buffer.readline() != ${JSON.stringify(CLAIM_LINE)}.encode():`,
  '    sys.exit(0)',
  `sys.stdout.write(${JSON.stringify(CLAIMED_ACK)})`,
  'sys.stdout.flush()',
  `sys.argv = [${JSON.stringify(WORKSPACE_ARGV[1])}]`,
  `sys.path[0] = ${JSON.stringify(WORKSPACE_ARGV[1]!.replace(/\/[^/]*$/, ''))}`,
  'runpy.run_path(sys.argv[0], run_name="__main__")',
].join('\n');

export function warmName(key: WarmKey): string {
  const { cpus, memoryMb, pids, tmpfsMb } = key.limits;
  const text = JSON.stringify([key.imageId, cpus, memoryMb, pids, tmpfsMb, key.runtime]);
  return WARM_PREFIX + createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The warm container's configuration: the pool's, with its own command, labels and AutoRemove. */
function warmConfig(key: WarmKey, idleS: number, nowMs = Date.now()) {
  return containerConfig({
    image: key.image,
    argv: ['python3', '-c', WARM_ENTRY, String(idleS)],
    limits: key.limits,
    runtime: key.runtime,
    autoRemove: true,
    labels: {
      [LABEL.run]: 'warm',
      [LABEL.call]: 'warm',
      [LABEL.warm]: '1',
      [LABEL.warmExpires]: String(nowMs + idleS * 1000),
    },
  });
}

/**
 * Leaves a started warm container for the next command; nothing when one is already waiting
 * under the name. A container that fails to start is removed.
 */
export async function leaveWarm(
  engine: DockerEngine,
  key: WarmKey,
  idleS: number,
  report: Report,
): Promise<void> {
  let id: string;
  try {
    id = await engine.createContainer(warmConfig(key, idleS), warmName(key));
  } catch (error) {
    if (httpStatus(error) === 409) return;
    throw error;
  }
  try {
    await engine.start(id);
  } catch (error) {
    await removeOrReport(engine, id, report);
    throw error;
  }
}

/**
 * Claims the warm container of this key, attached and confirmed, ready for a call (as a pooled
 * one is); null when there is none or it did not answer its claim.
 */
export async function claimWarm(
  engine: DockerEngine,
  key: WarmKey,
  report: Report,
): Promise<PreparedContainer | null> {
  const claimed = `${CLAIMED_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
  if (!(await engine.rename(warmName(key), claimed))) return null;
  const since = Date.now();
  let prepared: PreparedContainer;
  try {
    const [state, attached] = await Promise.all([
      engine.inspect(claimed),
      attachContainer(engine, claimed, key.limits.outputCapBytes),
    ]);
    prepared = attached;
    prepared.id = state.id;
  } catch {
    await removeOrReport(engine, claimed, report);
    return null;
  }
  prepared.removedOnExitSince = since;
  prepared.exited = engine.wait(prepared.id);
  prepared.exited.then(
    () => (prepared.exitedEarly = true),
    () => (prepared.exitedEarly = true),
  );
  if (await confirmClaim(prepared)) return prepared;
  prepared.stream.destroy();
  await removeOrReport(engine, prepared.id, report);
  return null;
}

/** Sends the claim line and waits for the container's answer, its end, or the claim's timeout. */
function confirmClaim(prepared: PreparedContainer): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = Buffer.alloc(0);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      prepared.stream.off('data', onData);
      resolve(ok);
    };
    // The answer comes in one stdout frame of the attach stream; its bytes are searched raw.
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]).subarray(-4096);
      if (seen.includes(CLAIMED_ACK)) done(true);
    };
    const timer = setTimeout(() => done(false), CLAIM_TIMEOUT_MS);
    prepared.stream.on('data', onData);
    void prepared.drained.then(() => done(false));
    prepared.stream.on('error', () => undefined);
    prepared.stream.write(CLAIM_LINE);
  });
}

function httpStatus(error: unknown): number | undefined {
  const cause = (error as { cause?: { statusCode?: number } }).cause;
  return cause?.statusCode ?? (error as { statusCode?: number }).statusCode;
}
