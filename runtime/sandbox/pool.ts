// Pre-started single-use containers (docs/sandbox.md): each already runs a Python entry point
// blocked on stdin for its work — a bare program (launch.py), or a header line (a command or a
// program) and a workspace tar (workspace.py, with pytest already imported: run_test and
// execute) — so a call skips create, start and the interpreter's
// start-up. A container serves one call and is removed; the pool refills in the
// background, one container at a time, up to its size. Never reused: isolation is per call.
import type { DockerEngine } from '../engine/docker-engine.js';
import { prepareContainer, startContainer, type PreparedContainer } from './container-run.js';
import { LABEL, containerConfig } from './hardening.js';
import { removeOrReport, reportToStderr, type Report } from './removal.js';
import type { Limits } from './spec.js';

export const EXECUTE_ARGV = ['python3', '/opt/piper/launch.py'];
/** Runs with a workspace: the command (or program) comes as a JSON line on stdin, then the tar (workspace.py). */
export const WORKSPACE_ARGV = ['python3', '/opt/piper/workspace.py'];

export interface PoolOptions {
  image: string;
  /** The entry point the pooled containers wait in: EXECUTE_ARGV or WORKSPACE_ARGV. */
  argv: string[];
  size: number;
  limits: Limits;
  /** The owner labels every pooled container carries (see Sandbox). */
  ownerLabels: Record<string, string>;
  /** HostConfig.Runtime of every pooled container; null: the engine's default. */
  runtime?: string | null;
  onError?: (error: unknown) => void;
  /** Where a container the engine would not remove is reported (default: stderr). */
  report?: Report;
  /**
   * Fill to `size` once and never again: a one-shot command (`run-test`, `execute`) makes one
   * call, and a container started after it would only be removed again at the exit.
   */
  once?: boolean;
}

export class WarmPool {
  private readonly ready: PreparedContainer[] = [];
  /** Removals started outside close() (a dead pooled container dropped by take()); close() waits for them. */
  private readonly discarding = new Set<Promise<void>>();
  private filling: Promise<void> | null = null;
  private closed = false;
  private failures = 0;
  private filledOnce = false;

  constructor(
    private readonly engine: DockerEngine,
    readonly options: PoolOptions,
  ) {}

  get readyCount(): number {
    return this.ready.length;
  }

  /** Whether a run with these limits can use a pooled container (they were created with the pool's). */
  fits(limits: Limits): boolean {
    const p = this.options.limits;
    return (
      limits.cpus === p.cpus &&
      limits.memoryMb === p.memoryMb &&
      limits.pids === p.pids &&
      limits.tmpfsMb === p.tmpfsMb
    );
  }

  /**
   * A ready container, or null when none is ready yet (the caller then runs cold). Refilling is
   * left to the caller's `refill()` after its run: a container being created meanwhile would
   * compete with the run for the engine's time, on the path whose latency matters.
   */
  take(): PreparedContainer | null {
    while (this.ready.length) {
      const container = this.ready.shift()!;
      // A pooled container whose launcher already exited cannot take a program; drop it.
      if (!container.exitedEarly) return container;
      const removal = this.discard(container).finally(() => this.discarding.delete(removal));
      this.discarding.add(removal);
    }
    return null;
  }

  /**
   * A ready container, waiting for one being started when none is ready yet: it is further along
   * than a cold one would be. Null when none is ready or coming.
   */
  async takeWhenReady(): Promise<PreparedContainer | null> {
    while (!this.ready.length && this.filling) await this.filling;
    return this.take();
  }

  /**
   * A container started elsewhere joins the ready ones: a warm one claimed from an earlier command
   * (warm-container.ts). A once-filled pool then counts as filled and starts none of its own.
   */
  adopt(container: PreparedContainer): void {
    this.filledOnce = true;
    this.ready.push(container);
  }

  /** Starts filling and resolves once the pool is full (or has stopped trying). */
  async warm(): Promise<void> {
    this.refill();
    while (this.filling) await this.filling;
  }

  refill(): void {
    if (this.filling || this.closed || (this.options.once && this.filledOnce)) return;
    this.filledOnce = true;
    this.filling = this.fill().finally(() => {
      this.filling = null;
    });
  }

  private async fill(): Promise<void> {
    // Three failures in a row (engine gone, image removed) stop the refilling; calls then run cold.
    while (!this.closed && this.ready.length < this.options.size && this.failures < 3) {
      try {
        const container = await this.create();
        if (this.closed) {
          await this.discard(container);
          return;
        }
        this.ready.push(container);
        this.failures = 0;
      } catch (error) {
        this.failures++;
        this.options.onError?.(error);
      }
    }
  }

  private async create(): Promise<PreparedContainer> {
    const config = containerConfig({
      image: this.options.image,
      argv: this.options.argv,
      limits: this.options.limits,
      runtime: this.options.runtime,
      labels: {
        [LABEL.run]: 'pool',
        [LABEL.call]: 'pool',
        [LABEL.pool]: '1',
        ...this.options.ownerLabels,
      },
    });
    const container = await prepareContainer(this.engine, config, this.options.limits.outputCapBytes);
    try {
      await startContainer(this.engine, container, { waitNow: true });
    } catch (error) {
      await this.discard(container);
      throw error;
    }
    return container;
  }

  /**
   * Removed first, the attach stream closed after: closing it first ends the program's stdin, and
   * a forced removal racing that exit is refused by Podman (the container stays, exited).
   */
  private async discard(container: PreparedContainer): Promise<void> {
    await removeOrReport(this.engine, container.id, this.options.report ?? reportToStderr);
    container.stream.destroy();
  }

  /** Removes every pooled container; the pool refills no more. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.filling) await this.filling.catch(() => undefined);
    const all = this.ready.splice(0);
    await Promise.all([...all.map((c) => this.discard(c)), ...this.discarding]);
  }
}
