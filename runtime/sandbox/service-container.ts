// A long-lived sandbox container that serves requests over its stdin/stdout (the lint gate's
// compile server runs in one, so syntax is judged by the sandbox's own python3). Hardened exactly
// like a run container (containerConfig: no network, no capabilities, a root only root writes, uid 1000,
// pids / memory / CPU limits) and labelled with its owner, so the start-up sweep removes it if
// this process dies. It is also removed by the engine once its program exits (AutoRemove): when
// this process goes away the attach socket closes, the server reads end of input and exits.
import type { Duplex } from 'node:stream';
import type { DockerEngine } from '../engine/docker-engine.js';
import { AttachDemuxer } from './demux.js';
import { LABEL, containerConfig } from './hardening.js';
import { currentOwner, formatOwner } from './owner.js';
import { ownerLabels } from './owner-labels.js';
import { removeOrReport, reportToStderr } from './removal.js';
import type { Limits } from './spec.js';

export interface ServiceHandlers {
  onStdout: (chunk: Buffer) => void;
  onStderr: (chunk: Buffer) => void;
  /** Once, when the attach stream ends: the program exited, was killed, or the engine went away. */
  onClose: () => void;
}

export interface ServiceContainer {
  id: string;
  write(data: string): void;
  /** Removes the container (killing the program), then closes the stream. */
  close(): Promise<void>;
}

const SERVICE_LIMITS: Limits = {
  cpus: 1,
  memoryMb: 256,
  pids: 16,
  timeoutS: 0, // unused: the service lives until it is closed
  outputCapBytes: 0, // unused: output is streamed to the handlers
  tmpfsMb: 8,
};

export async function openServiceContainer(
  engine: DockerEngine,
  opts: { image: string; argv: string[]; name: string; limits?: Limits; runtime?: string | null },
  handlers: ServiceHandlers,
): Promise<ServiceContainer> {
  const config = containerConfig({
    image: opts.image,
    argv: opts.argv,
    limits: opts.limits ?? SERVICE_LIMITS,
    runtime: opts.runtime,
    labels: { [LABEL.run]: 'service', [LABEL.call]: opts.name, ...ownerLabels(formatOwner(currentOwner())) },
  });
  config.HostConfig = { ...config.HostConfig, AutoRemove: true };
  const id = await engine.createContainer(config);
  let stream: Duplex;
  try {
    stream = await engine.attach(id);
    const demux = new AttachDemuxer(handlers.onStdout, handlers.onStderr);
    let closed = false;
    const onEnd = () => {
      if (closed) return;
      closed = true;
      handlers.onClose();
    };
    stream.on('data', (chunk: Buffer) => demux.push(chunk));
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    stream.on('error', onEnd);
    await engine.start(id);
  } catch (error) {
    await removeOrReport(engine, id, reportToStderr);
    throw error;
  }
  // An idle service must not keep Node running (the caller's pending requests have timers).
  (stream as unknown as { unref?: () => void }).unref?.();
  return {
    id,
    write: (data) => {
      stream.write(data);
    },
    close: async () => {
      // Removed before its input is closed: the program would exit on end of input, and Podman
      // refuses a forced removal that races that exit (pool.ts discards the same way).
      await removeOrReport(engine, id, reportToStderr);
      stream.end();
      stream.destroy();
    },
  };
}
