// The one adapter over dockerode (docs/architecture.md): everything else in piper-agent speaks to
// the engine through this small interface, so the sandbox logic reads as Docker Engine API calls
// and not as a client library's quirks. Errors leave here as RuntimeError kinds.
import type Docker from 'dockerode';
import type { Duplex, Readable } from 'node:stream';
import { RuntimeError, isConnectionFailure } from '../errors.js';
import { containerArchive, containerChanges, type ContainerChange } from './container-files.js';
import { oomEventSince } from './container-events.js';
import { createdContainers } from './created-containers.js';
import { buildContainerBody, createWithInitFallback, type BuildContainerConfig } from './build-container.js';
import { containerSummaryOf, imageInfoOf, imageSummaryOf } from './engine-replies.js';
import type { EngineIdentity, VersionBody } from './engine-identity.js';
import { askIdentity, askVersion } from './engine-self.js';
import { dockerode } from './dockerode-client.js';
import { engineEndpoint, engineFailure } from './engine-failure.js';
import type {
  AppliedSettings,
  ContainerConfig,
  ContainerState,
  ContainerSummary,
  EngineInfo,
  EngineRuntimes,
  ImageSummary,
  ImageInfo,
  ProgressListener,
} from './engine-types.js';
import {
  execInContainer,
  execWithTerminal,
  type ExecOptions,
  type InteractiveExec,
  type InteractiveExecOptions,
} from './container-exec.js';
import { localCandidates } from './image-names.js';
import { copyImage, pushToRegistry } from './image-transfer.js';
import { buildFromContext, importRootfs } from './image-writes.js';
import { podmanTmpfs } from './podman-compat.js';

export type {
  AppliedSettings,
  ContainerConfig,
  ContainerState,
  ContainerSummary,
  EngineInfo,
  EngineRuntimes,
  ImageSummary,
  ProgressListener,
} from './engine-types.js';
export { engineEndpoint } from './engine-failure.js';

/** The pause before a refused removal is tried again: long enough for a racing exit to settle. */
const REMOVE_RETRY_MS = 250;

export class DockerEngine {
  private readonly docker: Docker;
  /** Short names the engine knows only under another name (Podman 5: `localhost/…`). */
  private readonly localNames = new Map<string, string>();
  /** `remove` bound to this engine: how createdContainers removes what this engine created. */
  private readonly removeContainer = (id: string): Promise<void> => this.remove(id);
  /** Whether the engine refused an init it has no binary for: build boxes then bring their own. */
  private readonly initFallback = { noInitBinary: false };

  constructor(docker?: Docker) {
    // With no options dockerode reads DOCKER_HOST (and DOCKER_TLS_VERIFY / DOCKER_CERT_PATH) itself,
    // synchronously: a missing client certificate throws here, and is the engine's absence, not a crash.
    try {
      this.docker = docker ?? new (dockerode())();
    } catch (error) {
      throw new RuntimeError(
        'engine_unreachable',
        `cannot connect to ${engineEndpoint()}: ${(error as Error).message}`,
        'DOCKER_CERT_PATH must hold ca.pem, cert.pem and key.pem when DOCKER_TLS_VERIFY is set',
        { cause: error },
      );
    }
  }

  /** Whether the engine answers: GET /_ping, a few ms (GET /version takes ~40: dockerd asks runc). */
  async ping(): Promise<void> {
    await this.call('ping', () => this.docker.ping());
  }

  async info(): Promise<EngineInfo> {
    const v = await this.version();
    return {
      version: v.Version,
      apiVersion: v.ApiVersion,
      os: `${v.Os}/${v.Arch}`,
      endpoint: engineEndpoint(),
    };
  }

  /** Docker or Podman, rootless or not, which cgroups: asked once per engine in this process. */
  identity(): Promise<EngineIdentity> {
    return askIdentity(this.docker);
  }

  private version(): Promise<VersionBody> {
    return askVersion(this.docker);
  }

  async runtimes(): Promise<EngineRuntimes> {
    const info = (await this.call('info', () => this.docker.info())) as {
      Runtimes?: Record<string, unknown> | null;
      DefaultRuntime?: string;
    };
    const names = Object.keys(info.Runtimes ?? {}).sort();
    return { names, default: info.DefaultRuntime || 'runc' };
  }

  /**
   * Recorded in createdContainers until removed, so an interrupt can remove it wherever it came from.
   * A `name` the engine already has is refused (409, thrown as engine_error with that status).
   */
  createContainer(config: ContainerConfig, name?: string): Promise<string> {
    return createdContainers.create(async () => {
      const body = {
        ...config,
        ...(name ? { name } : {}),
        Image: this.localName(config.Image),
        HostConfig: await this.spelled(config),
      };
      const container = await this.call('create container', () => this.docker.createContainer(body));
      return container.id;
    }, this.removeContainer);
  }

  /** The HostConfig in the engine's own spelling of the same settings (podman-compat.ts). */
  private async spelled(config: { User: string; HostConfig: Record<string, unknown> }) {
    const tmpfs = config.HostConfig.Tmpfs as Record<string, string> | undefined;
    if (!tmpfs || (await this.identity()).kind !== 'podman') return config.HostConfig;
    return { ...config.HostConfig, Tmpfs: podmanTmpfs(tmpfs, config.User) };
  }

  /** The user and HostConfig the engine recorded for a container: what it will really apply. */
  async appliedSettings(id: string): Promise<AppliedSettings> {
    const info = await this.call('inspect', () => this.docker.getContainer(id).inspect());
    return {
      User: info.Config?.User ?? '',
      HostConfig: (info.HostConfig ?? {}) as unknown as Record<string, unknown>,
    };
  }

  /**
   * Hijacked attach: one duplex socket carrying stdin in and the multiplexed stdout/stderr out.
   * The options go in the query and the request body is empty: Podman takes the body of this
   * request as the start of the container's stdin (dockerode would send the options there as
   * JSON). An empty body still has to be written, or the request's headers are never sent.
   */
  async attach(id: string): Promise<Duplex> {
    const stream = await this.call(
      'attach',
      () =>
        new Promise<Duplex>((resolve, reject) =>
          this.docker.modem.dial(
            {
              path: `/containers/${encodeURIComponent(id)}/attach?`,
              method: 'POST',
              isStream: true,
              hijack: true,
              openStdin: true,
              file: Buffer.alloc(0),
              statusCodes: { 101: true, 200: true, 404: 'no such container', 500: 'server error' },
              options: { stream: true, stdin: true, stdout: true, stderr: true },
            },
            (error, socket) => (error ? reject(error) : resolve(socket as Duplex)),
          ),
        ),
    );
    return stream;
  }

  /**
   * Renames the container named (or with the id) `ref`: false when no container has that name any
   * more. The engine resolves `ref` once, so of two renames of one name only the first finds it.
   */
  async rename(ref: string, name: string): Promise<boolean> {
    try {
      await this.docker.getContainer(ref).rename({ name });
      return true;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return false;
      throw engineFailure('rename', error);
    }
  }

  async start(id: string): Promise<void> {
    await this.call('start', () => this.docker.getContainer(id).start());
  }

  /** Resolves with the exit status once the container is not running. */
  async wait(id: string): Promise<number> {
    const result = await this.call('wait', () => this.docker.getContainer(id).wait());
    return result.StatusCode as number;
  }

  async kill(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).kill({ signal: 'SIGKILL' });
    } catch (error) {
      // 409: not running any more; 404: already gone. Both mean the kill's goal holds.
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== 409 && status !== 404) throw engineFailure('kill', error);
    }
  }

  /**
   * Removes a container, running or not, and its anonymous volumes. 404 (already gone) and 409 (a
   * removal already under way) are its goal holding. Anything else is tried once more after a
   * moment: Podman refuses a forced removal that races the container's own exit ("could not be
   * stopped … container state improper: stopped", HTTP 500), and the second finds it stopped.
   * What fails twice is thrown, for the caller to report: a container is never left silently.
   */
  async remove(id: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.docker.getContainer(id).remove({ force: true, v: true });
        createdContainers.removed(id);
        return;
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status === 404 || status === 409) {
          createdContainers.removed(id);
          return;
        }
        if (attempt === 2 || isConnectionFailure(error)) throw engineFailure('remove', error);
        await new Promise((resolve) => setTimeout(resolve, REMOVE_RETRY_MS));
      }
    }
  }

  async inspect(id: string): Promise<ContainerState> {
    const info = await this.call('inspect', () => this.docker.getContainer(id).inspect());
    return {
      id: info.Id,
      exitCode: info.State.ExitCode,
      oomKilled: info.State.OOMKilled,
      running: info.State.Running,
      imageId: info.Image,
    };
  }

  /** Whether the engine logged an OOM kill of the container since then: for one already removed. */
  oomKilledSince(id: string, sinceMs: number): Promise<boolean> {
    return this.call('events', () => oomEventSince(this.docker, id, sinceMs));
  }

  async listContainers(labelFilters: string[]): Promise<ContainerSummary[]> {
    const list = await this.call('list containers', () =>
      this.docker.listContainers({ all: true, filters: { label: labelFilters } }),
    );
    return list.map(containerSummaryOf);
  }

  async listImages(labelFilters: string[]): Promise<ImageSummary[]> {
    const list = await this.call('list images', () =>
      this.docker.listImages({ filters: { label: labelFilters } }),
    );
    return list.map(imageSummaryOf);
  }

  /** The image's id (its content digest), or null when no such image exists. */
  async imageId(ref: string): Promise<string | null> {
    return (await this.inspectRaw(ref))?.Id ?? null;
  }

  /** GET /images/{ref}/json under the names the engine may file a short name as; null: none. */
  private async inspectRaw(ref: string): Promise<Docker.ImageInspectInfo | null> {
    for (const name of localCandidates(ref)) {
      try {
        const info = await this.docker.getImage(name).inspect();
        if (name !== ref) this.localNames.set(ref, name);
        return info;
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404)
          throw engineFailure('inspect image', error);
      }
    }
    return null;
  }

  /** The name to hand the engine for an image piper named `ref` (its local name, once seen). */
  private localName(ref: string): string {
    return this.localNames.get(ref) ?? ref;
  }

  /** Copies `ref` to another engine (save | load) unless it has it already; whether it copied. */
  copyImageTo(target: DockerEngine, ref: string): Promise<boolean> {
    return copyImage(this.docker, target.docker, ref);
  }

  /** Tags `ref` as REGISTRY/ref and pushes it there; the registry's name for it. */
  pushImage(ref: string, registry: string): Promise<string> {
    return pushToRegistry(this.docker, ref, registry);
  }

  async tagImage(id: string, repo: string, tag: string): Promise<void> {
    await this.call('tag image', () => this.docker.getImage(id).tag({ repo, tag }));
  }

  async removeImage(ref: string): Promise<void> {
    await this.call('remove image', () => this.docker.getImage(this.localName(ref)).remove({ force: true }));
  }

  /** A root filesystem tar becomes an image (image-writes.ts). */
  importImage(
    rootfsTar: Readable,
    target: { repo: string; tag: string; changes: string[] },
    onProgress: ProgressListener,
  ): Promise<void> {
    return importRootfs(this.docker, rootfsTar, target, onProgress);
  }

  /** An image built from a tar build context (image-writes.ts). */
  buildImage(
    context: Readable,
    options: { t: string; labels: Record<string, string>; buildargs?: Record<string, string> },
    onProgress: ProgressListener,
  ): Promise<void> {
    return buildFromContext(this.docker, context, options, onProgress);
  }

  /**
   * A container for a build step (a project environment): root, the network the engine gives
   * (`host` where it has no bridge), default capabilities. Never used for a sandbox run.
   */
  createBuildContainer(config: BuildContainerConfig): Promise<string> {
    return createdContainers.create(async () => {
      const create = (ownInit: boolean) =>
        this.call('create build container', async () => {
          const body = buildContainerBody({ ...config, Image: this.localName(config.Image) }, { ownInit });
          return (await this.docker.createContainer(body)).id;
        });
      return createWithInitFallback(create, this.initFallback);
    }, this.removeContainer);
  }

  /** Whether the engine has a bridge network (dockerd --bridge=none has only host and none). */
  async hasBridgeNetwork(): Promise<boolean> {
    const networks = await this.call('list networks', () => this.docker.listNetworks());
    return networks.some((n) => n.Driver === 'bridge');
  }

  /**
   * Runs a command in a running container and waits for it: exit code and both streams. `env`
   * lives only in this exec (never in the container's or a committed image's configuration), which
   * is how secrets such as an index URL with credentials reach a build step. `stdin` is written
   * then closed; a Tty exec is `execInteractive`.
   */
  async exec(
    id: string,
    opts: ExecOptions,
    onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
  ): Promise<number> {
    return execInContainer(this.docker.getContainer(id), opts, onOutput);
  }

  /** An interactive exec with a terminal: the caller pipes its own terminal to the socket. */
  execInteractive(id: string, opts: InteractiveExecOptions): Promise<InteractiveExec> {
    return execWithTerminal(this.docker.getContainer(id), opts);
  }

  /** PUT /containers/{id}/archive: a tar stream unpacked at `path` (on the container's root fs). */
  async putArchive(id: string, path: string, tar: Readable): Promise<void> {
    await this.call('put archive', () => this.docker.getContainer(id).putArchive(tar, { path }));
  }

  /** The container's changes against its image, and a path in it as a tar (container-files.ts). */
  changes(id: string): Promise<ContainerChange[]> {
    return this.call('changes', () => containerChanges(this.docker.getContainer(id)));
  }

  getArchive(id: string, path: string, maxBytes = 64 << 20): Promise<Buffer> {
    return this.call('get archive', () => containerArchive(this.docker.getContainer(id), path, maxBytes));
  }

  /** POST /commit: the container's filesystem becomes an image; `changes` are Dockerfile lines. */
  async commit(id: string, target: { repo: string; tag: string; changes: string[] }): Promise<string> {
    const result = (await this.call('commit', () =>
      this.docker.getContainer(id).commit({ repo: target.repo, tag: target.tag, changes: target.changes }),
    )) as { Id: string };
    return result.Id;
  }

  /** An image's id, size, creation time and labels; null when no such image exists. */
  async inspectImage(ref: string): Promise<ImageInfo | null> {
    const info = await this.inspectRaw(ref);
    return info ? imageInfoOf(info) : null;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw engineFailure(what, error);
    }
  }
}
