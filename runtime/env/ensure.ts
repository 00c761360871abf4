// The environment a command's sandboxes run in, chosen before the first call: a user-provided
// image as it is, the bare sandbox image (`--env base`, or a project with nothing to install), or
// the project's environment image — reused when one with exactly this content key exists (a hit
// costs one image inspect), built otherwise. Every choice is a row in the ledger's environments
// table; a failed build is too, and then the command stops before any model call.
import type { DockerEngine } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { ensureImage } from '../images/build.js';
import { RECIPE_LABEL, loadRecipe, type Suite } from '../images/recipe.js';
import {
  lastBuildOf,
  recordEnvironment,
  type EnvironmentStatus,
  type ResolvedPackage,
} from '../ledger/environments.js';
import type { Ledger } from '../ledger/ledger.js';
import { EnvBuildError } from './build-error.js';
import { buildEnvironment } from './builder.js';
import { environmentKey } from './key.js';
import { ENV_LABEL, envImageRef } from './names.js';
import { pipSettings } from './pip-settings.js';
import { planEnvironment } from './plan/detect.js';
import { redactPlan } from './plan/render.js';
import type { EnvPlan } from './plan/types.js';
import type { SandboxPython } from './plan/marker-env.js';
import { detectNative, nativeNote } from './native.js';
import { pruneProjectImages } from './prune.js';
import type { Redactor } from './secrets.js';
import { shortfallLine, type Shortfall } from './shortfall.js';
import { URL_REDACTOR } from './secrets.js';

/** auto: build or reuse; base: the bare sandbox image; rebuild: build again; strict: auto without best effort. */
export type EnvMode = 'auto' | 'base' | 'rebuild' | 'strict';

export interface EnvironmentChoice {
  /** The image every sandbox of the command uses. */
  image: string;
  key: string | null;
  status: Exclude<EnvironmentStatus, 'failed'>;
  seconds: number;
  /** What each source gave (built), or the sources of the build that made it (hit). */
  sources: string[];
  /** Things the user should see once: ignored untrusted settings, pruned images. */
  notes: string[];
  plan: EnvPlan | null;
  resolved: ResolvedPackage[];
  /** What best effort relaxed or left out (this build's, or the reused build's). */
  shortfalls: Shortfall[];
}

export interface EnsureInput {
  engine: DockerEngine;
  ledger: Ledger | null;
  repoRoot: string;
  mode: EnvMode;
  /** PIPER_SANDBOX_IMAGE / the `image` config key / --image: used as it is. */
  userImage?: string;
  /** Whether the user trusts the repository's recipe (index URLs, setup commands). */
  trustRecipe: boolean;
  owner: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The sandbox's Python when the recipe does not choose a Debian release (an A/B set's --debian). */
  python?: SandboxPython;
}

export async function ensureEnvironment(input: EnsureInput): Promise<EnvironmentChoice> {
  const t0 = Date.now();
  const seconds = () => (Date.now() - t0) / 1000;
  const { engine, repoRoot } = input;
  let redactor: Redactor = URL_REDACTOR;
  const record = (row: Omit<Parameters<typeof recordEnvironment>[1], 'repo' | 'seconds'>) => {
    if (input.ledger)
      recordEnvironment(input.ledger, redactRow(redactor, { ...row, repo: repoRoot, seconds: seconds() }));
  };

  if (input.userImage) {
    const info = await engine.inspectImage(input.userImage);
    if (!info)
      throw new RuntimeError(
        'image_missing',
        `the image ${input.userImage} (PIPER_SANDBOX_IMAGE / image / --image) is not on the engine`,
        'pull or build it, or unset it to let piper build the project environment',
      );
    record(emptyRow('user', null, input.userImage, info.id, ['user-provided image, used as it is']));
    return choice('user', input.userImage, null, seconds(), [], [], null, [], []);
  }

  const plan = planEnvironment(repoRoot, input.python ? { python: input.python } : {});
  const base = await baseImage(engine, plan.debian, input.log);
  const notes: string[] = [];
  const setup = input.trustRecipe ? plan.setup : [];
  if (!input.trustRecipe && plan.setup.length)
    notes.push(
      `ignored ${plan.setup.length} setup command(s) of .piper/sandbox.toml: the repository is not trusted (--trust-repo-config)`,
    );
  const pip = pipSettings(plan, input.env ?? process.env, {
    trustRepoIndex: input.trustRecipe,
    repoRoot,
  });
  redactor = pip.redactor;
  notes.push(...pip.notes);
  const strict = input.mode === 'strict' || plan.strict === true;

  const nothingToDo =
    !plan.requirements.length &&
    !plan.project.installable &&
    !plan.apt.length &&
    !setup.length &&
    plan.project.layout === 'flat';
  if (input.mode === 'base' || nothingToDo) {
    const why =
      input.mode === 'base'
        ? '--env base: the bare sandbox image'
        : 'nothing to install: the bare sandbox image';
    record(emptyRow('base', null, base.ref, base.imageId, [...plan.decisions, why], plan));
    return choice('base', base.ref, null, seconds(), [], notes, plan, [], []);
  }

  const native = detectNative(repoRoot, plan);
  if (native) notes.push(nativeNote(native));
  const key = environmentKey({
    plan,
    baseImageId: base.imageId,
    pip,
    setup,
    repoRoot,
    strict,
    native: native !== null,
  });
  const target = envImageRef(repoRoot, key);
  if (input.mode !== 'rebuild') {
    const existing = await engine.inspectImage(target.ref);
    if (
      existing &&
      existing.labels[ENV_LABEL.key] === key &&
      existing.labels[ENV_LABEL.base] === base.imageId
    ) {
      const shortfalls = (
        input.ledger ? (lastBuildOf(input.ledger, key)?.shortfalls ?? []) : []
      ) as Shortfall[];
      record({
        ...emptyRow('hit', key, target.ref, existing.id, plan.decisions, plan),
        baseImageId: base.imageId,
        sizeBytes: existing.size,
        shortfalls,
      });
      notes.push(...shortfalls.map(shortfallLine));
      return choice('hit', target.ref, key, seconds(), [], notes, plan, [], shortfalls);
    }
  }

  input.log(
    `building the environment of ${repoRoot} (${plan.requirements.length} requirement(s); key ${key.slice(0, 12)})`,
  );
  try {
    const built = await buildEnvironment({
      engine,
      repoRoot,
      plan,
      key,
      base: { ref: base.ref, id: base.imageId },
      pip,
      setup,
      trustUrls: input.trustRecipe,
      strict,
      native,
      refreshAptLists: input.mode === 'rebuild',
      owner: input.owner,
      log: (line) => input.log(pip.redactor.text(line)),
    });
    notes.push(...built.shortfalls.map(shortfallLine));
    const pruned = await pruneProjectImages(engine, repoRoot, { keep: 3, current: built.imageId });
    if (pruned.length) notes.push(`pruned ${pruned.length} older environment image(s) of this project`);
    record({
      key,
      status: 'built',
      image: built.imageRef,
      imageId: built.imageId,
      baseImageId: base.imageId,
      sizeBytes: built.sizeBytes,
      inputs: plan.inputs,
      decisions: plan.decisions,
      plan: planRecord(plan),
      steps: built.steps,
      resolved: built.resolved,
      sources: built.sources,
      shortfalls: built.shortfalls,
      error: null,
    });
    return choice(
      'built',
      built.imageRef,
      key,
      seconds(),
      built.sources,
      notes,
      plan,
      built.resolved,
      built.shortfalls,
    );
  } catch (error) {
    const steps = error instanceof EnvBuildError ? error.steps : [];
    const sources = error instanceof EnvBuildError ? error.sources : [];
    record({
      key,
      status: 'failed',
      image: target.ref,
      imageId: null,
      baseImageId: base.imageId,
      sizeBytes: null,
      inputs: plan.inputs,
      decisions: plan.decisions,
      plan: planRecord(plan),
      steps,
      resolved: [],
      sources,
      shortfalls: [],
      error: pip.redactor.text((error as Error).message),
    });
    if (error instanceof Error) error.message = pip.redactor.text(error.message);
    throw error;
  }
}

/**
 * The sandbox image the environment is built FROM: the image under piper's own tag for this recipe
 * (`piper-sandbox-python:<hash12>`, which only piper's build gives) when it carries the recipe's
 * hash — never one found by its label, which children inherit; built when there is none. The build
 * record of `image build` is not needed here, so piper running in a CI container beside the engine
 * uses the host's image as it is.
 */
async function baseImage(
  engine: DockerEngine,
  suite: Suite,
  log: (line: string) => void,
): Promise<{ ref: string; imageId: string }> {
  const recipe = loadRecipe({ suite });
  const tagged = await engine.inspectImage(recipe.ref);
  if (tagged && tagged.labels[RECIPE_LABEL] === recipe.hash) return { ref: recipe.ref, imageId: tagged.id };
  const built = await ensureImage(engine, { log, suite });
  return { ref: built.ref, imageId: built.imageId };
}

/** The plan as recorded: credentials in index URLs, find-links and requirement URLs removed. */
export function planRecord(plan: EnvPlan): EnvPlan {
  return redactPlan(plan);
}

function emptyRow(
  status: EnvironmentStatus,
  key: string | null,
  image: string,
  imageId: string | null,
  decisions: string[],
  plan?: EnvPlan,
) {
  return {
    key,
    status,
    image,
    imageId,
    baseImageId: null,
    sizeBytes: null,
    inputs: plan?.inputs ?? [],
    decisions,
    plan: plan ? planRecord(plan) : null,
    steps: [],
    resolved: [],
    sources: [],
    shortfalls: [] as Shortfall[],
    error: null,
  };
}

/** Every string of a row through the build's redactor: nothing recorded holds a credential. */
function redactRow<T>(redactor: Redactor, row: T): T {
  return JSON.parse(redactor.text(JSON.stringify(row))) as T;
}

function choice(
  status: EnvironmentChoice['status'],
  image: string,
  key: string | null,
  seconds: number,
  sources: string[],
  notes: string[],
  plan: EnvPlan | null,
  resolved: ResolvedPackage[],
  shortfalls: Shortfall[],
): EnvironmentChoice {
  return { image, key, status, seconds, sources, notes, plan, resolved, shortfalls };
}
