// One container of an environment build and the steps run in it. Each step is a `docker exec`
// with its own exit code, time limit and output, recorded as a ledger step (command redacted,
// the container's network named). Secrets travel only in an exec's environment, which is never
// part of the container's configuration, so a commit cannot capture them.
import type { Readable } from 'node:stream';
import type { DockerEngine } from '../../engine/docker-engine.js';
import { RuntimeError, isRuntimeError } from '../../errors.js';
import { inert } from '../../text/inert.js';
import { refuseCommitHoldingIndexFiles } from './network/held-boxes.js';
import type { EnvironmentStep } from '../../ledger/environments.js';
import type { LayerChange } from './project/project-layer.js';
import { URL_REDACTOR, type Redactor } from '../plan/secrets.js';
import { refuseNetworkedFrom } from './offline/downloaded-code-label.js';

const TAIL_BYTES = 4000;
/** How long a removal waits for the box's calls under way (a step's own time limit ends its exec). */
const PENDING_WAIT_MS = 30_000;
/** How many times a box whose step was killed is looked at (200 ms apart) before it counts as running. */
const KILLED_LOOKS = 10;

export interface StepSpec {
  name: string;
  /** Run as `sh -c SCRIPT`. */
  script: string;
  /** What the record shows instead of the script (credentials removed); default the script. */
  display?: string;
  /** Exec-only environment (credentials go here, never into the script). */
  env?: string[];
  timeoutS: number;
  /** Its output is machine-read, not for a person: not logged line by line (still in the tail). */
  quiet?: boolean;
}

export interface StepResult extends EnvironmentStep {
  stdout: string;
}

/**
 * The engine failed a call about a build's own box and the box is gone or not running: removed or
 * stopped from outside (another process, a person), not the step's own failure. The build runs the
 * phase once more in a new box (BuildContext.phase).
 */
export class BoxLostError extends RuntimeError {
  constructor(
    readonly box: string,
    readonly step: string,
    readonly engineError: string,
  ) {
    super('env_build_failed', `build box ${box.slice(0, 12)} went away during step ${step}: ${engineError}`);
  }
}

export class BuildBox {
  readonly steps: EnvironmentStep[] = [];
  private removed = false;
  /** Stopped by the build itself (the project phase): not running is then no sign of loss. */
  private stopped = false;
  /** Engine calls about this box under way: its removal waits for them (none races it). */
  private readonly pending = new Set<Promise<unknown>>();

  private constructor(
    private readonly engine: DockerEngine,
    readonly id: string,
    readonly network: string,
    private readonly log: (line: string) => void,
    private readonly redactor: Redactor,
  ) {}

  static async start(
    engine: DockerEngine,
    opts: {
      image: string;
      network: string;
      labels: Record<string, string>;
      log: (line: string) => void;
      /** The offline step: no capabilities but owning files as root, no privilege gain. */
      confined?: boolean;
      /** Every recorded command, output line and progress line goes through it. */
      redactor?: Redactor;
      /** Created only, never started: a container piper writes files into and commits. */
      createOnly?: boolean;
    },
  ): Promise<BuildBox> {
    // No networked step starts where downloaded code was installed (downloaded-code.ts).
    if (opts.network !== 'none') {
      const from = await engine.inspectImage(opts.image);
      if (from) refuseNetworkedFrom(opts.image, from.labels);
    }
    const id = await engine.createBuildContainer({
      Image: opts.image,
      ...(opts.confined
        ? {
            CapDrop: ['ALL'],
            CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER'],
            SecurityOpt: ['no-new-privileges'],
          }
        : {}),
      // The container only waits; every step is an exec into it.
      Cmd: ['sleep', 'infinity'],
      Labels: opts.labels,
      NetworkMode: opts.network,
      Memory: 2048 * 1024 * 1024,
      PidsLimit: 1024,
    });
    const box = new BuildBox(engine, id, opts.network, opts.log, opts.redactor ?? URL_REDACTOR);
    if (opts.createOnly) {
      box.stopped = true;
      return box;
    }
    try {
      // Not running yet: only a box that is gone counts as lost here, not a start the engine refused.
      box.stopped = true;
      await box.about('start', () => engine.start(id));
      box.stopped = false;
    } catch (error) {
      await box.remove();
      throw error;
    }
    return box;
  }

  async put(path: string, tar: Readable): Promise<void> {
    await this.about(`put ${path}`, () => this.engine.putArchive(this.id, path, tar));
  }

  /** Runs one step; a non-zero exit is returned (the caller decides), a timeout kills the box. */
  async run(step: StepSpec): Promise<StepResult> {
    const t0 = Date.now();
    const shown = this.redactor.text(step.display ?? step.script);
    this.log(`  [${step.name}] ${firstLine(shown)}`);
    let stdout = '';
    let tail = '';
    let partial = '';
    const onOutput = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (stream === 'stdout' && stdout.length < 1 << 20) stdout += text;
      // Kept a little longer than shown: a secret cut at the start would survive its redaction.
      tail = (tail + text).slice(-(TAIL_BYTES + 512));
      // Progress: whole lines, as they come.
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      // Build output is the packages' and the project's words: inert before any terminal sees it.
      if (step.quiet) return;
      for (const line of lines)
        if (line.trim()) this.log(`    ${inert(this.redactor.text(line).slice(0, 200))}`);
    };
    try {
      const exitCode = await this.exec(step, onOutput);
      const record: StepResult = {
        name: step.name,
        command: shown,
        network: this.network,
        exit_code: exitCode,
        seconds: (Date.now() - t0) / 1000,
        output_tail: this.redactor.text(tail).slice(-TAIL_BYTES),
        stdout,
      };
      this.steps.push(withoutStdout(record));
      return record;
    } catch (error) {
      this.steps.push({
        name: step.name,
        command: shown,
        network: this.network,
        exit_code: -1,
        seconds: (Date.now() - t0) / 1000,
        output_tail: this.redactor.text(`${tail}\n${(error as Error).message}`),
      });
      throw error;
    }
  }

  /** The step's exec, within its time limit (a timeout kills the box); a lost box is a BoxLostError. */
  private async exec(
    step: StepSpec,
    onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
  ): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.engine.kill(this.id);
        reject(
          new RuntimeError(
            'env_build_failed',
            `environment step ${step.name} took longer than ${step.timeoutS} s and was stopped`,
          ),
        );
      }, step.timeoutS * 1000);
    });
    try {
      const exitCode = await Promise.race([
        this.about(step.name, () =>
          this.engine.exec(this.id, { cmd: ['sh', '-c', step.script], env: step.env }, onOutput),
        ),
        timeout,
      ]);
      // A step killed with its box (removed from outside) ends with an exit code, not an error.
      if (exitCode !== 0 && (await this.lostAfter(exitCode)))
        throw new BoxLostError(this.id, step.name, `its command ended with exit ${exitCode} as the box went`);
      return exitCode;
    } finally {
      clearTimeout(timer);
    }
  }

  async commit(target: { repo: string; tag: string; changes: string[] }): Promise<string> {
    refuseCommitHoldingIndexFiles(this);
    return this.about('commit', () => this.engine.commit(this.id, target));
  }

  /** Stops every process of the box at once: nothing it started can change its files after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.about('stop', async () => {
      await this.engine.kill(this.id);
      await this.engine.wait(this.id);
    });
  }

  async changes(): Promise<LayerChange[]> {
    return this.about('changes', () => this.engine.changes(this.id));
  }

  async read(path: string, maxBytes?: number): Promise<Buffer> {
    return this.about(`read ${path}`, () => this.engine.getArchive(this.id, path, maxBytes));
  }

  /** Once every call about the box has ended: the engine is never asked about a box being removed. */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise((resolve) => (timer = setTimeout(resolve, PENDING_WAIT_MS).unref()));
    await Promise.race([Promise.allSettled([...this.pending]), bound]);
    clearTimeout(timer);
    await this.engine.remove(this.id).catch(() => undefined);
  }

  /**
   * One engine call about this box, recorded as under way. Refused without asking the engine once
   * the box is let go; an engine error while the box is gone or not running is a BoxLostError.
   */
  private async about<T>(step: string, call: () => Promise<T>): Promise<T> {
    if (this.removed)
      throw new RuntimeError(
        'env_build_failed',
        `build box ${this.id.slice(0, 12)} was already let go (${step})`,
      );
    const running = call();
    this.pending.add(running);
    try {
      return await running;
    } catch (error) {
      if (isRuntimeError(error, 'engine_error') && (await this.lost()))
        throw new BoxLostError(this.id, step, error.message);
      throw error;
    } finally {
      this.pending.delete(running);
    }
  }

  /**
   * After a step's non-zero exit: whether the box went with it. A step killed (SIGKILL, 137) by
   * the box's removal may end a moment before the engine has the box itself as ended: looked at
   * again a few times before it counts as the step's own exit.
   */
  private async lostAfter(exitCode: number): Promise<boolean> {
    const looks = exitCode === 137 ? KILLED_LOOKS : 1;
    for (let look = 1; ; look++) {
      if (await this.lost()) return true;
      if (look >= looks) return false;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Whether the box is gone, or not running although the build never stopped it. */
  private async lost(): Promise<boolean> {
    try {
      const state = await this.engine.inspect(this.id);
      return !this.stopped && !state.running;
    } catch (error) {
      return isRuntimeError(error, 'engine_error');
    }
  }
}

function withoutStdout(r: StepResult): EnvironmentStep {
  const { stdout: _stdout, ...rest } = r;
  return rest;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
