// The Swarm manager's API, as `ab --cluster swarm` uses it (docs/scale.md): configs for an
// instance's inputs, replicated jobs for its run, the tasks that say where and how it ran, and the
// service logs its result comes back in, the secret an endpoint's key travels in. dockerode speaks
// it; this file keeps the shapes piper reads small and turns the engine's failures into
// RuntimeErrors, as docker-engine.ts does for containers. The manager's image calls go through the
// one engine adapter (`engine`), built on the same connection.
import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { RuntimeError } from '../errors.js';
import { DockerEngine } from './docker-engine.js';
import { dockerode } from './dockerode-client.js';

/** A task's state, as Swarm reports it: the job ran to `complete`, or ended otherwise. */
export interface SwarmTask {
  id: string;
  nodeId: string;
  state: string;
  message: string;
  /** The container's exit code, when it has exited. */
  exitCode: number | null;
  containerId: string | null;
}

interface SwarmService {
  id: string;
  name: string;
  labels: Record<string, string>;
}

/** Swarm's end states of a task: none of them changes again. */
export const TASK_END_STATES = new Set(['complete', 'failed', 'shutdown', 'rejected', 'orphaned', 'remove']);

/** dockerode's connection options for a manager endpoint: unix:///path or tcp://host:port. */
function endpointOptions(url: string): Docker.DockerOptions {
  if (url.startsWith('unix://')) return { socketPath: url.slice('unix://'.length) };
  const tcp = /^tcp:\/\/([^:/]+):(\d+)\/?$/.exec(url);
  if (tcp) return { host: tcp[1]!, port: Number(tcp[2]), protocol: 'http' };
  throw new RuntimeError(
    'engine_unreachable',
    `the Swarm manager endpoint '${url}' is neither unix:///PATH nor tcp://HOST:PORT`,
  );
}

/** A node as the manager describes it: where a job may run, and what it can run. */
export interface SwarmNode {
  id: string;
  hostname: string;
  /** As Go names it (amd64, arm64), the form an image's Architecture takes. */
  architecture: string;
}

const GO_ARCH: Record<string, string> = { x86_64: 'amd64', aarch64: 'arm64', armv7l: 'arm' };

export class SwarmClient {
  private readonly docker: Docker;
  /** The manager's engine, through the one adapter: images are copied to it and pushed from it. */
  readonly engine: DockerEngine;

  constructor(readonly endpoint: string) {
    this.docker = new (dockerode())(endpointOptions(endpoint));
    this.engine = new DockerEngine(this.docker);
  }

  /** The manager's node id; fails when the endpoint is not a Swarm manager. */
  async managerNode(): Promise<string> {
    const info = (await this.call('ask the engine for its Swarm state', () => this.docker.info())) as {
      Swarm?: { NodeID?: string; ControlAvailable?: boolean };
    };
    if (!info.Swarm?.NodeID || !info.Swarm.ControlAvailable)
      throw new RuntimeError(
        'engine_unreachable',
        `${this.endpoint} is not a Swarm manager (docker swarm init makes one)`,
      );
    return info.Swarm.NodeID;
  }

  /** The ids of the nodes that are Ready and Active: where a global service runs a task. */
  async readyNodes(): Promise<string[]> {
    return (await this.readyNodeDescriptions()).map((n) => n.id);
  }

  async readyNodeDescriptions(): Promise<SwarmNode[]> {
    const nodes = (await this.call('list nodes', () => this.docker.listNodes())) as Array<{
      ID: string;
      Status?: { State?: string };
      Spec?: { Availability?: string };
      Description?: { Hostname?: string; Platform?: { Architecture?: string } };
    }>;
    return nodes
      .filter((n) => n.Status?.State === 'ready' && n.Spec?.Availability === 'active')
      .map((n) => {
        const arch = n.Description?.Platform?.Architecture ?? '';
        return { id: n.ID, hostname: n.Description?.Hostname ?? n.ID, architecture: GO_ARCH[arch] ?? arch };
      });
  }

  /** A secret (what an endpoint's key travels in: never in a spec, a label or a log). */
  async createSecret(name: string, data: Buffer, labels: Record<string, string>): Promise<string> {
    const created = (await this.call(`create the secret ${name}`, () =>
      this.docker.createSecret({ Name: name, Labels: labels, Data: data.toString('base64') }),
    )) as { id?: string; ID?: string };
    return created.id ?? created.ID ?? '';
  }

  async listSecrets(label: string): Promise<SwarmService[]> {
    const list = (await this.call('list secrets', () =>
      this.docker.listSecrets({ filters: { label: [label] } }),
    )) as Array<{ ID: string; Spec?: { Name?: string; Labels?: Record<string, string> } }>;
    return list.map((c) => ({ id: c.ID, name: c.Spec?.Name ?? '', labels: c.Spec?.Labels ?? {} }));
  }

  async removeSecret(id: string): Promise<void> {
    await this.call(`remove the secret ${id}`, () => this.docker.getSecret(id).remove(), true);
  }

  async createConfig(name: string, data: Buffer, labels: Record<string, string>): Promise<string> {
    const created = (await this.call(`create the config ${name}`, () =>
      this.docker.createConfig({ Name: name, Labels: labels, Data: data.toString('base64') }),
    )) as { id?: string; ID?: string };
    return created.id ?? created.ID ?? '';
  }

  async createService(spec: Record<string, unknown>): Promise<string> {
    const service = (await this.call(`create the service ${String(spec.Name)}`, () =>
      this.docker.createService(spec as unknown as Docker.CreateServiceOptions),
    )) as { id: string };
    return service.id;
  }

  async listServices(label: string): Promise<SwarmService[]> {
    const list = await this.call('list services', () =>
      this.docker.listServices({ filters: { label: [label] } }),
    );
    return list.map((s) => ({ id: s.ID!, name: s.Spec?.Name ?? '', labels: s.Spec?.Labels ?? {} }));
  }

  async listConfigs(label: string): Promise<SwarmService[]> {
    const list = await this.call('list configs', () =>
      this.docker.listConfigs({ filters: { label: [label] } }),
    );
    return list.map((c) => ({ id: c.ID, name: c.Spec?.Name ?? '', labels: c.Spec?.Labels ?? {} }));
  }

  async tasks(serviceId: string): Promise<SwarmTask[]> {
    const list = (await this.call('list tasks', () =>
      this.docker.listTasks({ filters: { service: [serviceId] } }),
    )) as Array<Record<string, unknown>>;
    return list.map(taskOf);
  }

  /**
   * The tasks a removed service still has while its nodes drop them. Docker 20.10 answers a task
   * list for a removed service's id with 404 once the service is gone from the store: none left.
   */
  async tasksLeft(serviceId: string): Promise<SwarmTask[]> {
    const list = (await this.call(
      'list tasks',
      () => this.docker.listTasks({ filters: { service: [serviceId] } }),
      true,
    )) as Array<Record<string, unknown>> | undefined;
    return (list ?? []).map(taskOf);
  }

  /** The service's stdout (a job's result block is in it) and stderr, every task's, each as text. */
  async serviceLogs(serviceId: string): Promise<{ stdout: string; stderr: string }> {
    const raw = (await this.call('read the service logs', () =>
      this.docker.getService(serviceId).logs({ stdout: true, stderr: true, follow: false }),
    )) as unknown as Buffer | NodeJS.ReadableStream;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    if (Buffer.isBuffer(raw)) demuxBuffer(raw, out, err);
    else {
      const stdout = new PassThrough().on('data', (c: Buffer) => out.push(c));
      const stderr = new PassThrough().on('data', (c: Buffer) => err.push(c));
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.demuxStream(raw, stdout, stderr);
        raw.on('end', () => resolve());
        raw.on('error', reject);
      });
    }
    return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  }

  /** Removes a service (its tasks' containers go with it); one already gone is not an error. */
  async removeService(id: string): Promise<void> {
    await this.call(`remove the service ${id}`, () => this.docker.getService(id).remove(), true);
  }

  async removeConfig(id: string): Promise<void> {
    await this.call(`remove the config ${id}`, () => this.docker.getConfig(id).remove(), true);
  }

  private async call<T>(what: string, fn: () => Promise<T>, goneIsFine = false): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (goneIsFine && status === 404) return undefined as T;
      throw new RuntimeError(
        'engine_error',
        `cannot ${what} on ${this.endpoint}: ${(error as Error).message}`,
        undefined,
        {
          cause: error,
        },
      );
    }
  }
}

function taskOf(t: Record<string, unknown>): SwarmTask {
  const status = (t.Status ?? {}) as {
    State?: string;
    Message?: string;
    Err?: string;
    ContainerStatus?: { ExitCode?: number; ContainerID?: string };
  };
  return {
    id: String(t.ID),
    nodeId: String(t.NodeID ?? ''),
    state: status.State ?? 'unknown',
    message: status.Err ?? status.Message ?? '',
    exitCode: status.ContainerStatus?.ExitCode ?? null,
    containerId: status.ContainerStatus?.ContainerID || null,
  };
}

/** The engine's multiplexed log frames (8-byte header: stream, 0, 0, 0, length) from one buffer. */
function demuxBuffer(raw: Buffer, out: Buffer[], err: Buffer[]): void {
  for (let at = 0; at + 8 <= raw.length;) {
    const length = raw.readUInt32BE(at + 4);
    if (raw[at] === 1) out.push(raw.subarray(at + 8, at + 8 + length));
    if (raw[at] === 2) err.push(raw.subarray(at + 8, at + 8 + length));
    at += 8 + length;
  }
}
