// One container's life, in the three steps the warm pool needs to keep apart:
// prepare (create + attach, so no byte of output can be missed), start, and finish (feed stdin,
// enforce the wall time by killing the container, drain the output to its end, read the status).
import type { Duplex, Readable } from 'node:stream';
import type { ContainerConfig, DockerEngine } from '../engine/docker-engine.js';
import { StreamCapture } from './capture.js';
import { AttachDemuxer } from './demux.js';
import { removeOrReport, reportToStderr, type Report } from './removal.js';

export interface PreparedContainer {
  id: string;
  stream: Duplex;
  /** Replaced when a pooled container is claimed, so the run's own output cap applies. */
  stdout: StreamCapture;
  stderr: StreamCapture;
  /** Settles when the attach stream has ended: all output has been read. */
  drained: Promise<void>;
  createMs: number;
  startMs: number;
  /** The engine's wait, started early for pooled containers so no request setup is on the call's path. */
  exited?: Promise<number>;
  /** Set when the container stopped on its own before it was given work (a pooled one that died). */
  exitedEarly?: boolean;
  /**
   * A claimed warm container, which the engine removes on its exit (AutoRemove): from this time
   * (ms) its OOM kill is read from the engine's event log, as no inspect finds it after the exit.
   */
  removedOnExitSince?: number;
}

export interface Finished {
  exitCode: number;
  timedOut: boolean;
  oomKilled: boolean;
  /** Why the container was killed, where the engine cannot tell and the receipt must not guess. */
  killReason: string | null;
  runMs: number;
}

/**
 * A SIGKILL nobody here sent, on an engine that never reports memory kills (EngineIdentity
 * reportsOomKills): the receipt keeps oom_killed false, which is all the engine said, and names
 * what is known instead of claiming an OOM kill.
 */
export const UNREPORTED_KILL_REASON =
  'killed by SIGKILL (this engine does not report OOM kills; the memory limit is the likely cause)';

/** After the container exits its output should end at once; this bounds a stuck stream. */
const DRAIN_GRACE_MS = 10_000;

export async function prepareContainer(
  engine: DockerEngine,
  config: ContainerConfig,
  outputCapBytes: number,
  onCreated?: (id: string) => void,
  report: Report = reportToStderr,
): Promise<PreparedContainer> {
  const t0 = performance.now();
  const id = await engine.createContainer(config);
  onCreated?.(id);
  const createMs = performance.now() - t0;
  try {
    const prepared = await attachContainer(engine, id, outputCapBytes);
    prepared.createMs = createMs;
    return prepared;
  } catch (error) {
    await removeOrReport(engine, id, report);
    throw error;
  }
}

/**
 * Attaches to a container that exists (created here, or a warm one claimed from another process)
 * and demultiplexes its output into the captures, from this moment on.
 */
export async function attachContainer(
  engine: DockerEngine,
  id: string,
  outputCapBytes: number,
): Promise<PreparedContainer> {
  const stream = await engine.attach(id);
  const prepared: PreparedContainer = {
    id,
    stream,
    stdout: new StreamCapture(outputCapBytes),
    stderr: new StreamCapture(outputCapBytes),
    drained: Promise.resolve(),
    createMs: 0,
    startMs: 0,
  };
  const demux = new AttachDemuxer(
    (chunk) => prepared.stdout.write(chunk),
    (chunk) => prepared.stderr.write(chunk),
  );
  prepared.drained = new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => demux.push(chunk));
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  return prepared;
}

export async function startContainer(
  engine: DockerEngine,
  prepared: PreparedContainer,
  opts: { waitNow?: boolean } = {},
): Promise<void> {
  const t0 = performance.now();
  await engine.start(prepared.id);
  prepared.startMs = performance.now() - t0;
  if (opts.waitNow) {
    prepared.exited = engine.wait(prepared.id);
    prepared.exited.then(
      () => (prepared.exitedEarly = true),
      () => (prepared.exitedEarly = true),
    );
  }
}

export async function finishContainer(
  engine: DockerEngine,
  prepared: PreparedContainer,
  input: { stdin?: string | Buffer; workspace?: Readable; header?: string; timeoutS: number },
): Promise<Finished> {
  const t0 = performance.now();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void engine.kill(prepared.id).catch(() => undefined);
  }, input.timeoutS * 1000);
  const exited = prepared.exited ?? engine.wait(prepared.id);
  feedStdin(prepared.stream, input);
  let exitCode: number;
  try {
    exitCode = await exited;
  } finally {
    clearTimeout(timer);
  }
  const runMs = performance.now() - t0;
  await Promise.race([prepared.drained, delay(DRAIN_GRACE_MS)]);
  prepared.stream.destroy();
  // The kernel's OOM killer sends SIGKILL, which init reports as 137; only then is the (slower)
  // inspect needed to tell an OOM kill from an exit(137) or a kill of our own.
  const killed = exitCode === 137 && !timedOut;
  const oomKilled = killed ? await wasOomKilled(engine, prepared) : false;
  const killReason =
    killed && !oomKilled && !(await engine.identity()).reportsOomKills ? UNREPORTED_KILL_REASON : null;
  return { exitCode, timedOut, oomKilled, killReason, runMs };
}

function wasOomKilled(engine: DockerEngine, prepared: PreparedContainer): Promise<boolean> {
  if (prepared.removedOnExitSince !== undefined)
    return engine.oomKilledSince(prepared.id, prepared.removedOnExitSince);
  return engine.inspect(prepared.id).then((state) => state.oomKilled);
}

function feedStdin(
  stream: Duplex,
  input: { stdin?: string | Buffer; workspace?: Readable; header?: string },
): void {
  // A process that exits without reading its stdin makes our writes fail with EPIPE; that is its
  // business, not an error of the run, so write errors are ignored here.
  stream.on('error', () => undefined);
  if (input.workspace) {
    if (input.header !== undefined) stream.write(input.header);
    input.workspace.on('error', () => stream.end());
    input.workspace.pipe(stream, { end: true });
    return;
  }
  if (input.stdin !== undefined && input.stdin.length > 0) stream.write(input.stdin);
  stream.end();
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
