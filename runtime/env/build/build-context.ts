// What every phase of one environment build shares: the engine, the input, the labels its
// containers carry, the steps and sources recorded so far, and how a phase fails (an EnvBuildError
// carrying everything recorded, so the ledger row of a failed build says what ran).
import { randomBytes } from 'node:crypto';
import type { DockerEngine } from '../../engine/docker-engine.js';
import type { EnvironmentStep, ResolvedPackage } from '../../ledger/environments.js';
import { ownerLabels } from '../../sandbox/owner-labels.js';
import { EnvBuildError, IndexUnreachableError } from './build-error.js';
import { BoxLostError, BuildBox, type StepResult } from './build-box.js';
import { AptCache } from './apt-cache.js';
import { WheelCache, wheelCacheDir } from './network/wheel-cache.js';
import { envImageRef, intermediateTag, type IntermediatePhase } from '../floor/names.js';
import { APT_CACHE_REBUILT, APT_DEBS_FETCHED, aptStep } from './steps.js';
import type { PytestPlugin } from './project/pytest-entry-points.js';
import type { PipSettings } from '../plan/pip-settings.js';
import type { BuildSpec } from '../spec/spec-schema.js';
import type { Shortfall } from './shortfall.js';
import { lastLines } from './step-output.js';

export interface BuildInput {
  engine: DockerEngine;
  repoRoot: string;
  /** What the image is made from (spec/build-spec.ts): the builder derives nothing else. */
  spec: BuildSpec;
  key: string;
  /** The declarations key: the dependency image's (no repository code ran in it), reused across checkouts. */
  depsKey: string;
  base: { ref: string; id: string };
  pip: PipSettings;
  owner: string;
  log: (line: string) => void;
  /** The project name the image is filed under instead of the tree's path (EnsureInput.projectName). */
  projectName?: string;
  /**
   * The index probe the chooser ran before this build (choose/index-probe.ts): its step joins the
   * record, and a fallback build says what it said.
   */
  probe?: { step?: EnvironmentStep; said: string };
  /** `--env rebuild`: no kept dependency image is reused, and Debian's package lists are fetched again. */
  refreshAptLists?: boolean;
  /**
   * false: Debian's packages are installed for this build alone, neither looked for nor kept as a
   * layer (debian-layer.ts) — the environment bench's baseline, as builds were before the layers.
   */
  debianLayers?: boolean;
}

/** An apt step in `box` through the build's list and package cache. */
export async function runApt(
  ctx: BuildContext,
  box: BuildBox,
  name: string,
  packages: string[],
  strict: boolean,
): Promise<StepResult> {
  const fresh = await ctx.apt.prime(box);
  const r = await box.run(aptStep(name, packages, strict, !fresh));
  const said = new Set(r.stdout.split('\n'));
  if (r.exit_code === 0)
    await ctx.apt.save(box, {
      lists: !fresh,
      binaryCache: said.has(APT_CACHE_REBUILT),
      debs: said.has(APT_DEBS_FETCHED),
    });
  return r;
}

/** The build's first source line: where its packages come from, and why when it is a fallback. */
function sourcesLine(sources: BuildSpec['sources'], probeSaid: string | undefined): string {
  if (sources.fallback)
    return `sources: debian, a fallback build (the setting is index: ${probeSaid ?? 'the index did not answer'})`;
  return sources.used === 'index'
    ? "sources: index (pip, from the index; Debian's packages for what it does not give)"
    : "sources: debian (Debian's packages; the index is not asked)";
}

export class BuildContext {
  readonly steps: EnvironmentStep[] = [];
  readonly sources: string[] = [];
  readonly resolved = new Map<string, ResolvedPackage>();
  readonly shortfalls: Shortfall[] = [];
  /** The pytest plugins the image holds (pytest-entry-points.ts), read after each install. */
  readonly pytestPlugins: PytestPlugin[] = [];
  readonly target: { repo: string; tag: string; ref: string };
  readonly labels: Record<string, string>;
  readonly apt: AptCache;
  /** The host's wheel cache (deps/wheel-cache.ts): only for builds that ask an index. */
  readonly wheels: WheelCache | null;
  /** This build's own id: its intermediate images' tags carry it (names.ts intermediateTag). */
  readonly buildId = randomBytes(4).toString('hex');
  readonly spec: BuildSpec;

  constructor(readonly input: BuildInput) {
    this.spec = input.spec;
    this.target = envImageRef(input.repoRoot, input.key, input.projectName);
    this.apt = new AptCache(input.spec.plan.debian, { refresh: input.refreshAptLists });
    this.wheels = input.spec.sources.used === 'index' ? new WheelCache(wheelCacheDir()) : null;
    this.labels = { ...ownerLabels(input.owner), 'piper.env.build': input.key };
    if (input.probe?.step) this.steps.push(input.probe.step);
    this.sources.push(sourcesLine(input.spec.sources, input.probe?.said));
  }

  /** The tag of this build's image after `phase`, which only this build uses and removes. */
  /**
   * A box with no network, no secret and no capability but owning files: where a downloaded
   * distribution's or the repository's build code runs.
   */
  offlineBox(image: string): Promise<BuildBox> {
    const { engine, log, pip } = this.input;
    return BuildBox.start(engine, {
      image,
      network: 'none',
      labels: this.labels,
      log,
      confined: true,
      redactor: pip.redactor,
    });
  }

  intermediateTag(phase: IntermediatePhase): string {
    return intermediateTag(this.target, phase, this.buildId);
  }

  fail(message: string, fix: string): never {
    throw new EnvBuildError(this.input.pip.redactor.text(message), fix, this.steps, this.sources);
  }

  /** pip found the index unreachable in an index build: none is made (IndexUnreachableError). */
  indexGone(said: string): never {
    throw new IndexUnreachableError(this.input.pip.redactor.text(said), this.steps, this.sources);
  }

  check(step: StepResult, what: string): void {
    if (step.exit_code !== 0)
      this.fail(
        `environment step ${what} failed (exit ${step.exit_code}): ${lastLines(step.output_tail)}`,
        "every step's command and output are in the ledger (table environments, column steps) of this repository",
      );
  }

  /** A box's steps join the record (also when the box failed). */
  collect(box: BuildBox): void {
    this.steps.push(...box.steps.splice(0));
  }

  /** Images only this build uses (an sdist's compiler image): removed when the build ends. */
  readonly scratchImages: string[] = [];

  /** Removals under way while the next phase runs (0.3 s each); the build awaits them before it ends. */
  readonly removals: Promise<void>[] = [];

  /**
   * Runs one phase; when its box is lost (removed or stopped from outside: BoxLostError), once
   * more in a new box, from what was recorded before it (its lost steps stay in the record). Lost
   * again, the build fails with one line naming the box, the step and the engine's error.
   */
  async phase<T>(name: string, run: () => Promise<T>): Promise<T> {
    const before = this.mark();
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof BoxLostError)) throw error;
      this.input.log(
        `environment ${this.target.ref}: ${error.message}; the ${name} phase runs again in a new box`,
      );
      this.rollBack(before);
    }
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof BoxLostError)) throw error;
      this.fail(
        `the ${name} phase lost its box twice: ${error.message}`,
        "something removed or stopped the build's containers (label piper.env.build): let the build run, then try again",
      );
    }
  }

  private mark() {
    return {
      sources: this.sources.length,
      shortfalls: this.shortfalls.length,
      plugins: this.pytestPlugins.length,
      resolved: new Map(this.resolved),
    };
  }

  private rollBack(to: ReturnType<BuildContext['mark']>): void {
    this.sources.length = to.sources;
    this.shortfalls.length = to.shortfalls;
    this.pytestPlugins.length = to.plugins;
    this.resolved.clear();
    for (const [k, v] of to.resolved) this.resolved.set(k, v);
  }

  /** Removes a phase's box without holding up the next phase. */
  removeLater(box: BuildBox): void {
    this.removals.push(box.remove());
  }
}
