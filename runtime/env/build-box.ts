// One container of an environment build and the steps run in it. Each step is a `docker exec`
// with its own exit code, time limit and output, recorded as a ledger step (command redacted,
// the container's network named). Secrets travel only in an exec's environment, which is never
// part of the container's configuration, so a commit cannot capture them.
import type { Readable } from 'node:stream';
import type { DockerEngine } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { inert } from '../text/inert.js';
import type { EnvironmentStep } from '../ledger/environments.js';
import type { LayerChange } from './project-layer.js';
import { URL_REDACTOR, type Redactor } from './secrets.js';

const TAIL_BYTES = 4000;

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

export class BuildBox {
  readonly steps: EnvironmentStep[] = [];
  private removed = false;

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
    if (opts.createOnly) return box;
    try {
      await engine.start(id);
    } catch (error) {
      await box.remove();
      throw error;
    }
    return box;
  }

  async put(path: string, tar: Readable): Promise<void> {
    await this.engine.putArchive(this.id, path, tar);
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
        this.engine.exec(this.id, { cmd: ['sh', '-c', step.script], env: step.env }, onOutput),
        timeout,
      ]);
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
    } finally {
      clearTimeout(timer);
    }
  }

  async commit(target: { repo: string; tag: string; changes: string[] }): Promise<string> {
    return this.engine.commit(this.id, target);
  }

  /** Stops every process of the box at once: nothing it started can change its files after this. */
  async stop(): Promise<void> {
    await this.engine.kill(this.id);
    await this.engine.wait(this.id);
  }

  async changes(): Promise<LayerChange[]> {
    return this.engine.changes(this.id);
  }

  async read(path: string, maxBytes?: number): Promise<Buffer> {
    return this.engine.getArchive(this.id, path, maxBytes);
  }

  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    await this.engine.remove(this.id).catch(() => undefined);
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
