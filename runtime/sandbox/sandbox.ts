// The sandbox: one call = one fresh container (docs/sandbox.md). It chooses a pooled
// container when one fits, bounds concurrency, tracks what is running so an interrupt can kill it,
// and removes every container after use (in the background, so removal is off the caller's path).
import type { DockerEngine } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { StreamCapture } from './capture.js';
import {
  finishContainer,
  prepareContainer,
  startContainer,
  type Finished,
  type PreparedContainer,
} from './container-run.js';
import { probeHardening, requireEnforced, type HardeningReport } from './enforcement.js';
import { LABEL, containerConfig } from './hardening.js';
import { Limiter } from './limiter.js';
import { currentOwner, formatOwner } from './owner.js';
import { ownerLabels } from './owner-labels.js';
import { EXECUTE_ARGV, WORKSPACE_ARGV, WarmPool } from './pool.js';
import { removeOrReport, reportToStderr, type Report } from './removal.js';
import { resolveLimits, type Limits, type Receipt, type RunSpec } from './spec.js';
import { claimWarm, leaveWarm, type WarmKey } from './warm-container.js';

export interface SandboxOptions {
  image: string;
  /** The project environment the image was built for (its content key); null for the bare image. */
  envKey?: string | null;
  /** Pre-started containers kept for `execute`; 0 = no pool. */
  poolSize?: number;
  /** Limits the pooled containers are created with; runs asking for others go cold. */
  poolLimits?: Partial<Limits>;
  /** Pre-started containers kept for runs with a workspace (run_test); 0 = no pool. */
  workspacePoolSize?: number;
  workspacePoolLimits?: Partial<Limits>;
  /** At most this many runs at once; the rest queue. */
  concurrency?: number;
  /** The OCI runtime every container gets (HostConfig.Runtime, e.g. `runsc`); absent: the engine's default. */
  runtime?: string | null;
  /** Where a container the engine would not remove is reported (default: stderr). */
  log?: Report;
  /**
   * A one-shot command's sandbox (`run-test`, `execute`): its pools fill once — started by
   * `prestart()` while the command still plans its call — and a run waits for a pooled container
   * being started rather than starting a second, cold one beside it.
   */
  oneShot?: boolean;
  /**
   * With `oneShot` and a workspace pool: a container kept warm between commands
   * (warm-container.ts). The prestart claims the one an earlier command left before it starts its
   * own, and a call the pool serves leaves a fresh one for the next command, which exits and is
   * removed after `idleS` seconds unclaimed.
   */
  keepWarm?: { idleS: number };
}

export interface RunHooks {
  /** Called with the container id as soon as it exists (the ledger records it). */
  onContainer?: (containerId: string) => void;
}

export class Sandbox {
  private readonly limiter: Limiter;
  private readonly pool: WarmPool | null;
  private readonly workspacePool: WarmPool | null;
  private readonly active = new Set<string>();
  private readonly removals = new Set<Promise<void>>();
  private readonly ownerLabel = formatOwner(currentOwner());
  private readonly ownerLabels = ownerLabels(this.ownerLabel);
  private readonly imageDigests = new Map<string, string>();
  private readonly report: Report;
  private hardening: Promise<HardeningReport> | null = null;
  private prestarting: Promise<void> | null = null;
  /** The warm container this command leaves for the next (keepWarm), being created. */
  private leaving: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly engine: DockerEngine,
    private readonly options: SandboxOptions,
  ) {
    this.limiter = new Limiter(options.concurrency ?? 4);
    this.report = options.log ?? reportToStderr;
    this.pool =
      (options.poolSize ?? 0) > 0
        ? new WarmPool(engine, {
            image: options.image,
            argv: EXECUTE_ARGV,
            size: options.poolSize!,
            limits: resolveLimits(options.poolLimits),
            ownerLabels: this.ownerLabels,
            runtime: options.runtime ?? null,
            report: this.report,
            once: options.oneShot ?? false,
          })
        : null;
    this.workspacePool =
      (options.workspacePoolSize ?? 0) > 0
        ? new WarmPool(engine, {
            image: options.image,
            argv: WORKSPACE_ARGV,
            size: options.workspacePoolSize!,
            limits: resolveLimits(options.workspacePoolLimits),
            ownerLabels: this.ownerLabels,
            runtime: options.runtime ?? null,
            report: this.report,
            once: options.oneShot ?? false,
          })
        : null;
  }

  get image(): string {
    return this.options.image;
  }

  /** The runtime named for this sandbox's containers; null: the engine's default. */
  get runtime(): string | null {
    return this.options.runtime ?? null;
  }

  get envKey(): string | null {
    return this.options.envKey ?? null;
  }

  /** Checks the image exists (once): a RuntimeError('image_missing') says how to build it. */
  async checkImage(): Promise<string> {
    return this.resolveImage(this.options.image);
  }

  /** Checks the image exists (once) and fills the pool; call before the first run to run warm. */
  async init(): Promise<{ imageDigest: string }> {
    const digest = await this.resolveImage(this.options.image);
    await Promise.all([this.pool?.warm(), this.workspacePool?.warm()]);
    return { imageDigest: digest };
  }

  /**
   * Starts filling the pools in the background, after the image and its hardening are checked:
   * a one-shot command calls it as soon as it knows its image, so the container starts while the
   * command records the run and plans the snapshot. A failure here is the run's to report: it
   * checks the image again, or runs cold.
   */
  prestart(): void {
    this.prestarting ??= this.claimOrInit().then(
      () => undefined,
      () => undefined,
    );
  }

  /** The warm container an earlier command left, when there is one of this key; then init(). */
  private async claimOrInit(): Promise<void> {
    const key = this.warmKey(await this.resolveImage(this.options.image));
    const claimed = key ? await claimWarm(this.engine, key, this.report).catch(() => null) : null;
    if (claimed) this.workspacePool!.adopt(claimed);
    await this.init();
  }

  /** What a warm container must match to serve this sandbox's workspace pool; null: none is kept. */
  private warmKey(imageId: string): WarmKey | null {
    if (!this.options.keepWarm || !this.options.oneShot || !this.workspacePool) return null;
    const { image, limits, runtime } = this.workspacePool.options;
    return { image, imageId, limits, runtime: runtime ?? null };
  }

  /** Leaves a fresh warm container for the next command, in the background; close() awaits it. */
  private leaveWarmFor(imageId: string): void {
    const key = this.warmKey(imageId);
    if (!key || this.leaving || this.closed) return;
    this.leaving = leaveWarm(this.engine, key, this.options.keepWarm!.idleS, this.report).catch(
      (error: unknown) =>
        this.report(`could not leave a warm container for the next command: ${(error as Error).message}`),
    );
  }

  async run(spec: RunSpec, hooks: RunHooks = {}): Promise<Receipt> {
    if (this.closed) throw new RuntimeError('interrupted', 'the sandbox is shut down');
    const limits = checkSpec(spec);
    const imageDigest = await this.resolveImage(spec.image);
    const release = await this.limiter.acquire();
    const t0 = performance.now();
    let container: PreparedContainer | null = null;
    try {
      const acquired = await this.acquire(spec, limits, hooks, imageDigest);
      container = acquired.container;
      const finished = await finishContainer(this.engine, container, {
        stdin: spec.stdin,
        workspace: spec.workspace,
        header: spec.workspace ? workspaceHeader(spec) : undefined,
        timeoutS: limits.timeoutS,
      });
      return {
        ...receiptOutput(container, finished),
        timings: {
          create_ms: round(acquired.pooled ? 0 : container.createMs),
          start_ms: round(acquired.pooled ? 0 : container.startMs),
          run_ms: round(finished.runMs),
          total_ms: round(performance.now() - t0),
        },
        container_id: container.id,
        image: spec.image,
        image_digest: imageDigest,
        warm: acquired.pooled,
        limits,
      };
    } finally {
      release();
      if (container) this.removeLater(container);
      this.pool?.refill();
      this.workspacePool?.refill();
    }
  }

  /**
   * The run's container: a pooled one when one fits (a one-shot command waits for its prestart),
   * else one created and started now. One that fails to start is removed before the error leaves.
   */
  private async acquire(
    spec: RunSpec,
    limits: Limits,
    hooks: RunHooks,
    imageDigest: string,
  ): Promise<{ container: PreparedContainer; pooled: boolean }> {
    const pool = this.poolFor(spec, limits);
    if (this.prestarting) await this.prestarting;
    const pooled = (this.options.oneShot ? await pool?.takeWhenReady() : pool?.take()) ?? null;
    if (pooled) {
      if (pool === this.workspacePool) this.leaveWarmFor(imageDigest);
      pooled.stdout = new StreamCapture(limits.outputCapBytes);
      pooled.stderr = new StreamCapture(limits.outputCapBytes);
      this.active.add(pooled.id);
      hooks.onContainer?.(pooled.id);
      return { container: pooled, pooled: true };
    }
    const container = await prepareContainer(
      this.engine,
      this.coldConfig(spec, limits),
      limits.outputCapBytes,
      (id) => {
        this.active.add(id);
        hooks.onContainer?.(id);
      },
      this.report,
    );
    try {
      await startContainer(this.engine, container);
    } catch (error) {
      this.removeLater(container);
      throw error;
    }
    return { container, pooled: false };
  }

  /** Kills what runs, removes every container this sandbox made, and stops the pool. */
  async close(): Promise<void> {
    this.closed = true;
    const running = [...this.active];
    await Promise.all(running.map((id) => removeOrReport(this.engine, id, this.report)));
    // The pools first: a prestart still filling one stops there (its container is removed).
    await Promise.all([this.pool?.close(), this.workspacePool?.close()]);
    if (this.prestarting) await this.prestarting;
    // Not removed: it is for the next command. Awaited, so none is left created but not started.
    if (this.leaving) await this.leaving;
    await Promise.all([...this.removals]);
  }

  /** Ids of the containers running a call right now. */
  runningContainers(): string[] {
    return [...this.active];
  }

  /**
   * A pool whose containers wait in this run's entry point with these limits, if any: a run with
   * a workspace (run_test, execute) is served by one waiting in workspace.py, a bare program by
   * one waiting in launch.py.
   */
  private poolFor(spec: RunSpec, limits: Limits): WarmPool | null {
    if (spec.env?.length || spec.image !== this.options.image) return null;
    const entry = spec.workspace ? WORKSPACE_ARGV : spec.argv;
    const pools = [this.workspacePool, this.pool];
    return pools.find((p) => p && sameArgv(p.options.argv, entry) && p.fits(limits)) ?? null;
  }

  private coldConfig(spec: RunSpec, limits: Limits) {
    return containerConfig({
      image: spec.image,
      argv: spec.workspace ? WORKSPACE_ARGV : spec.argv,
      limits,
      env: spec.env,
      runtime: this.options.runtime,
      labels: {
        [LABEL.run]: spec.labels?.run ?? 'adhoc',
        [LABEL.call]: spec.labels?.call ?? 'adhoc',
        ...this.ownerLabels,
      },
    });
  }

  private async resolveImage(image: string): Promise<string> {
    const known = this.imageDigests.get(image);
    if (known) return known;
    const id = await this.engine.imageId(image);
    if (!id) {
      throw new RuntimeError(
        'image_missing',
        `the sandbox image ${image} does not exist on the engine`,
        'run `piper-agent image build` (or `make image`)',
      );
    }
    await this.checkHardening(image);
    this.imageDigests.set(image, id);
    return id;
  }

  /** Once, before the first container: every hardening setting holds on this engine, or was accepted. */
  private checkHardening(image: string): Promise<HardeningReport> {
    this.hardening ??= probeHardening(this.engine, image, {
      runtime: this.options.runtime ?? null,
      labels: this.ownerLabels,
    }).then(requireEnforced);
    return this.hardening;
  }

  private removeLater(container: PreparedContainer): void {
    container.stream.destroy();
    const removal = removeOrReport(this.engine, container.id, this.report)
      .then(() => undefined)
      .finally(() => {
        this.active.delete(container.id);
        this.removals.delete(removal);
      });
    this.removals.add(removal);
  }
}

/** The workspace entry point's first line: the command (or program) and its variables, as JSON. */
function workspaceHeader(spec: RunSpec): string {
  const header = {
    argv: spec.argv,
    ...(spec.program !== undefined ? { program: spec.program } : {}),
    ...(spec.programFile !== undefined ? { program_file: spec.programFile } : {}),
    ...(spec.workspaceEnv ? { env: spec.workspaceEnv } : {}),
  };
  return `${JSON.stringify(header)}\n`;
}

/** The receipt's exit and output fields. */
function receiptOutput(container: PreparedContainer, finished: Finished) {
  const out = container.stdout.result();
  const err = container.stderr.result();
  return {
    exit_code: finished.exitCode,
    timed_out: finished.timedOut,
    oom_killed: finished.oomKilled,
    ...(finished.killReason ? { kill_reason: finished.killReason } : {}),
    stdout: out.text,
    stderr: err.text,
    stdout_bytes: out.bytes,
    stderr_bytes: err.bytes,
    stdout_sha256: out.sha256,
    stderr_sha256: err.sha256,
    stdout_truncated: out.truncated,
    stderr_truncated: err.truncated,
  };
}

function checkSpec(spec: RunSpec): Limits {
  if (!spec.argv.length) throw new RuntimeError('bad_spec', 'argv is empty');
  if (!spec.workspace && (spec.program !== undefined || spec.workspaceEnv)) {
    throw new RuntimeError(
      'bad_spec',
      'program and workspaceEnv go with a workspace (its entry point reads them)',
    );
  }
  if (spec.workspace && spec.stdin !== undefined) {
    throw new RuntimeError(
      'bad_spec',
      'a run takes a workspace or stdin, not both (the workspace arrives on stdin)',
    );
  }
  try {
    return resolveLimits(spec.limits);
  } catch (error) {
    throw new RuntimeError('bad_spec', (error as Error).message);
  }
}

function sameArgv(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
