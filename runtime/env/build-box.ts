// One container of an environment build and the steps run in it. Each step is a `docker exec`
// with its own exit code, time limit and output, recorded as a ledger step (command redacted,
// the container's network named). Secrets travel only in an exec's environment, which is never
// part of the container's configuration, so a commit cannot capture them.
import type { Readable } from 'node:stream';
import type { DockerEngine } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { inert } from '../text/inert.js';
import type { EnvironmentStep } from '../ledger/environments.js';

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
    const box = new BuildBox(engine, id, opts.network, opts.log);
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
    this.log(`  [${step.name}] ${firstLine(step.display ?? step.script)}`);
    let stdout = '';
    let tail = '';
    let partial = '';
    const onOutput = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (stream === 'stdout' && stdout.length < 1 << 20) stdout += text;
      tail = (tail + text).slice(-TAIL_BYTES);
      // Progress: whole lines, as they come.
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      // Build output is the packages' and the project's words: inert before any terminal sees it.
      for (const line of lines) if (line.trim()) this.log(`    ${inert(line.slice(0, 200))}`);
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
        command: step.display ?? step.script,
        network: this.network,
        exit_code: exitCode,
        seconds: (Date.now() - t0) / 1000,
        output_tail: tail,
        stdout,
      };
      this.steps.push(withoutStdout(record));
      return record;
    } catch (error) {
      this.steps.push({
        name: step.name,
        command: step.display ?? step.script,
        network: this.network,
        exit_code: -1,
        seconds: (Date.now() - t0) / 1000,
        output_tail: `${tail}\n${(error as Error).message}`,
      });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async commit(target: { repo: string; tag: string; changes: string[] }): Promise<string> {
    return this.engine.commit(this.id, target);
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
