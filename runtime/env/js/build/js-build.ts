// What one JavaScript environment build carries from phase to phase: its inputs, its record (steps,
// sources, shortfalls) and the redaction every line goes through (the registry token). A failure is
// an EnvBuildError with the steps so far, as a Python build's.
import { randomBytes } from 'node:crypto';
import type { DockerEngine } from '../../../engine/docker-engine.js';
import type { EnvironmentStep } from '../../../ledger/environments.js';
import { ownerLabels } from '../../../sandbox/owner-labels.js';
import { EnvBuildError } from '../../build/build-error.js';
import type { BuildBox, StepResult } from '../../build/build-box.js';
import { Redactor } from '../../plan/secrets.js';
import type { Shortfall } from '../../build/shortfall.js';
import type { JsPlan } from '../plan/js-plan.js';
import type { NpmRegistry } from '../toolchain/npm-registry.js';

export interface JsBuildInput {
  engine: DockerEngine;
  repoRoot: string;
  plan: JsPlan;
  /** The toolchain image the build boxes start from. */
  toolchain: { ref: string; key: string; versions: string[] };
  /** The sandbox image under the toolchain (its id is the environment's base label). */
  base: { ref: string; id: string };
  registry: NpmRegistry;
  key: string;
  target: { repo: string; tag: string; ref: string };
  strict: boolean;
  owner: string;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  projectLabel: string;
}

export class JsBuild {
  readonly steps: EnvironmentStep[] = [];
  readonly sources: string[] = [];
  readonly shortfalls: Shortfall[] = [];
  readonly buildId = randomBytes(4).toString('hex');
  readonly labels: Record<string, string>;
  readonly redactor: Redactor;

  constructor(readonly input: JsBuildInput) {
    this.labels = { ...ownerLabels(input.owner), 'piper.env.build': input.key };
    this.redactor = new Redactor([input.registry.url], input.registry.token ? [input.registry.token] : []);
  }

  /** The tag of this build's image between its phases, which only this build uses and removes. */
  intermediate(phase: string): { repo: string; tag: string; ref: string } {
    const tag = `${this.input.target.tag}-${phase}-${this.buildId}`;
    return { repo: this.input.target.repo, tag, ref: `${this.input.target.repo}:${tag}` };
  }

  collect(box: BuildBox): void {
    this.steps.push(...box.steps.splice(0));
  }

  fail(message: string, fix: string): never {
    throw new EnvBuildError(this.redactor.text(message), fix, this.steps, this.sources);
  }

  check(step: StepResult, what: string): void {
    if (step.exit_code !== 0)
      this.fail(
        `environment step ${what} failed (exit ${step.exit_code}): ${lastLines(step.output_tail)}`,
        "every step's command and output are in the ledger (table environments, column steps) of this repository",
      );
  }
}

export function lastLines(text: string, n = 8): string {
  return text.trim().split('\n').slice(-n).join('\n');
}
