// The environment a command's sandboxes run in, chosen before the first call: a user-provided
// image as it is, the bare sandbox image (`--env base`, or a project with nothing to install), or
// the project's environment image — reused when one with exactly this content key exists (a hit
// costs one image inspect), built otherwise. With sources = index and no image of the key yet, the
// index is asked first (index-probe.ts): when it does not answer, the environment is a fallback
// from Debian's packages under a key of its own (spec-schema.ts fallbackSpec), said in one note,
// and the next command asks again — so a fallback is never taken for an index build once the index
// answers. Every choice is a row in the ledger's environments table; a failed build is too, and
// then the command stops before any model call.
import type { DockerEngine } from '../../engine/docker-engine.js';
import { RuntimeError } from '../../errors.js';
import { ensureImage } from '../../images/build.js';
import { RECIPE_LABEL, loadRecipe, type Suite } from '../../images/recipe.js';
import { lastBuildOf, type ResolvedPackage } from '../../ledger/environments.js';
import { acquireBuildLock } from '../../host/build-lock.js';
import { ChoiceRecord, emptyRow, recordBuilt, recordFailure } from './choice-record.js';
import { IndexUnreachableError } from '../build/build-error.js';
import type { EnvironmentStep } from '../../ledger/environments.js';
import { declarationsKey, imageKey } from './key.js';
import { ENV_LABEL, envImageRef } from '../floor/names.js';
import type { PipSettings } from '../plan/pip-settings.js';
import { planEnvironment } from '../plan/detect.js';
import type { EnvPlan } from '../plan/types.js';
import { nativeNote } from '../plan/native.js';
import { fallbackSpec, sourcesLabel, type BuildSpec } from '../spec/spec-schema.js';
import { prepareSpec } from '../spec/prepare-spec.js';
import { pruneProjectImages } from './prune.js';
import { stepCatalog } from '../build/step-catalog.js';
import {
  PYTEST_PLUGINS_LABEL,
  pluginsFromLabel,
  type PytestPlugin,
} from '../build/project/pytest-entry-points.js';
import { pytestRunEnv } from '../run/pytest-run-env.js';
import { SHORTFALLS_LABEL, shortfallLine, shortfallsFromLabel, type Shortfall } from '../build/shortfall.js';

export type { EnsureInput, EnvironmentChoice, EnvMode } from './environment-choice.js';
import type { EnsureInput, EnvironmentChoice } from './environment-choice.js';

/** The image a build makes: its key, its declarations' key (the kept dependency images) and its tag. */
interface BuildTarget {
  key: string;
  depsKey: string;
  ref: string;
  /** One build per set of declarations at a time: the dependency image they make is kept and shared. */
  lockName: string;
}

/** What a project environment is made of, read before any image is looked for. */
interface Prepared {
  spec: BuildSpec;
  plan: EnvPlan;
  base: { ref: string; imageId: string };
  notes: string[];
  pip: PipSettings;
  /** The index probe before an index build or a fallback (index-probe.ts): its step joins the build's record. */
  probe?: { step?: EnvironmentStep; said: string };
}

export async function ensureEnvironment(input: EnsureInput): Promise<EnvironmentChoice> {
  const rec = new ChoiceRecord(input);
  if (input.userImage) return userImageChoice(input, input.userImage, rec);
  if (input.language === 'javascript') return javascriptChoice(input);
  const prepared = await prepare(input);
  const { spec, plan, base, notes, pip } = prepared;
  rec.redactor = pip.redactor;
  if (input.mode === 'base' || nothingToDo(plan, spec.setup)) {
    const why =
      input.mode === 'base'
        ? '--env base: the bare sandbox image'
        : 'nothing to install: the bare sandbox image';
    rec.write(emptyRow('base', null, base.ref, base.imageId, [...plan.decisions, why], plan));
    // The bare sandbox image holds pytest and no plugin.
    return choice('base', base.ref, null, rec.seconds(), [], notes, plan, [], [], []);
  }
  if (spec.native) notes.push(nativeNote(spec.native));
  const target = buildTarget(input, spec);
  const reused = input.mode === 'rebuild' ? null : await reuse(input, prepared, target, rec);
  if (reused) return reused;
  // pip's no-index (the user's): there is no index to ask, pip uses find-links only. Nor is it
  // asked before a build on a kept dependency image: only a top-up would need it, and finds it gone.
  if (
    spec.sources.used === 'index' &&
    !prepared.pip.network.noIndex &&
    !(await depsKept(input, prepared, target))
  ) {
    const probe = await askIndex(input, prepared, target.ref);
    if (!probe.answered) return fallback(input, prepared, probe, rec);
    prepared.probe = probe;
  }
  try {
    return await buildOnce(input, prepared, target, rec);
  } catch (error) {
    // pip found the index gone during the build: no index image was made, the fallback is.
    if (!(error instanceof IndexUnreachableError)) throw error;
    return fallback(input, prepared, { said: error.said }, rec);
  }
}

/** A JavaScript repository's environment (ensure-js.ts), loaded only for one. */
async function javascriptChoice(input: EnsureInput): Promise<EnvironmentChoice> {
  if (!input.jsPlan)
    throw new RuntimeError(
      'env_build_failed',
      'a JavaScript repository needs its plan to build its environment',
    );
  const { ensureJsEnvironment } = await import('./ensure-js.js');
  // No bare image holds Node: `--env base` builds (or reuses) the environment as auto does.
  const mode = input.mode === 'base' ? 'auto' : input.mode;
  const js = await ensureJsEnvironment({ ...input, plan: input.jsPlan, mode });
  const run = { env: js.runEnv, notes: [], runNotes: [] };
  const { image, key, status, seconds, sources, notes, shortfalls, plan } = js;
  return {
    image,
    key,
    status,
    seconds,
    sources,
    notes,
    plan: null,
    jsPlan: plan,
    resolved: [],
    shortfalls,
    pytestPlugins: [],
    run,
  };
}

/**
 * The image of a spec: its key, its declarations' key and its tag. What the project's build code
 * produced is keyed by every file it could read: a new checkout builds its project layer again (on
 * the dependency image of the same declarations). Chosen once per command: a `fix` run's edits and
 * the checkout it started from are one trust domain.
 */
function buildTarget(input: EnsureInput, spec: BuildSpec): BuildTarget {
  const depsKey = declarationsKey(spec);
  const key = imageKey(spec);
  const target = envImageRef(input.repoRoot, key, input.projectName);
  return { key, depsKey, ref: target.ref, lockName: `${target.repo}-${depsKey}` };
}

/** The dependency image of these declarations is on the engine (never with `--env rebuild`: it builds every part). */
async function depsKept(input: EnsureInput, prepared: Prepared, target: BuildTarget): Promise<boolean> {
  if (input.mode === 'rebuild') return false;
  const { depsImageKept } = await import('../build/deps-image.js');
  const { repo } = envImageRef(input.repoRoot, target.key, input.projectName);
  return depsImageKept(input.engine, { repo, depsKey: target.depsKey, baseId: prepared.base.imageId });
}

/** Whether the index answers, from a box on the build's network (loaded only when a build may follow). */
async function askIndex(input: EnsureInput, prepared: Prepared, ref: string) {
  const { probeIndex } = await import('./index-probe.js');
  input.log(`environment ${ref}: asking the index whether it answers`);
  return probeIndex(input.engine, {
    image: prepared.base.ref,
    pip: prepared.pip,
    owner: input.owner,
    log: (line) => input.log(prepared.pip.redactor.text(line)),
  });
}

/**
 * The index did not answer: the environment of the fallback spec (Debian's packages, its own key),
 * reused when this machine made it before, built otherwise — and said in one line either way.
 */
async function fallback(
  input: EnsureInput,
  prepared: Prepared,
  probe: { said: string; step?: EnvironmentStep },
  rec: ChoiceRecord,
): Promise<EnvironmentChoice> {
  // The probe that said the index answered (before a build that then lost it) is not this one.
  const { probe: _answered, ...rest } = prepared;
  const fell: Prepared = { ...rest, spec: fallbackSpec(prepared.spec), probe };
  const why = probe.said.replace(/; not tried(?: further)?$/, '');
  const line = `fallback build from Debian's packages: ${why}; the next command asks the index again and builds from it once it answers (sources = debian: the index is never asked)`;
  prepared.notes.push(line);
  const target = buildTarget(input, fell.spec);
  const reused = input.mode === 'rebuild' ? null : await reuse(input, fell, target, rec);
  const made = reused ?? (await buildOnce(input, fell, target, rec));
  return { ...made, fallback: line };
}

/**
 * The build, under the lock of its declarations (build-lock.ts): one build per key at a time on this
 * machine. An image the build this process waited for made is as new as this one would be: a hit.
 */
async function buildOnce(
  input: EnsureInput,
  prepared: Prepared,
  target: BuildTarget,
  rec: ChoiceRecord,
): Promise<EnvironmentChoice> {
  const lock = await acquireBuildLock(target.lockName, {
    log: input.log,
    ...(input.env ? { env: input.env } : {}),
  });
  try {
    const made = lock.waited ? await reuse(input, prepared, target, rec) : null;
    if (made) input.log(`the build this one waited for made ${target.ref}: it is used`);
    return made ?? (await build(input, prepared, target, rec));
  } finally {
    lock.release();
  }
}

/** A user-provided image, used as it is: it must be on the engine. */
async function userImageChoice(
  input: EnsureInput,
  image: string,
  rec: ChoiceRecord,
): Promise<EnvironmentChoice> {
  const info = await input.engine.inspectImage(image);
  if (!info)
    throw new RuntimeError(
      'image_missing',
      `the image ${image} (PIPER_SANDBOX_IMAGE / image / --image) is not on the engine`,
      'pull or build it, or unset it to let piper build the project environment',
    );
  rec.write(emptyRow('user', null, image, info.id, ['user-provided image, used as it is']));
  // An image piper built (a replay names the recorded run's) says which pytest plugins it holds, so
  // its runs get the variables a run in it had (autoload off, the project's plugins by name, the
  // plan's testEnv); the bare sandbox image holds none the project asks for. Another image's
  // plugins are not known, and it runs as it is.
  const plugins =
    pluginsFromLabel(info.labels[PYTEST_PLUGINS_LABEL]) ??
    (info.labels[RECIPE_LABEL] !== undefined ? [] : null);
  const plan = plugins ? planEnvironment(input.repoRoot) : null;
  return choice('user', image, null, rec.seconds(), [], [], plan, [], [], plugins);
}

/** The build spec (the plan, the setup commands and pip settings the trust allows), its base image, the notes. */
async function prepare(input: EnsureInput): Promise<Prepared> {
  const prepared = prepareSpec({
    repoRoot: input.repoRoot,
    trustRecipe: input.trustRecipe,
    strict: input.mode === 'strict',
    env: input.env ?? process.env,
    ...(input.sources ? { sources: input.sources } : {}),
    ...(input.python ? { python: input.python } : {}),
    ...(input.indexDate ? { indexDate: input.indexDate } : {}),
    steps: stepCatalog(),
  });
  const base = await baseImage(input.engine, prepared.plan.debian, input.log);
  return { ...prepared, base };
}

function nothingToDo(plan: EnvPlan, setup: string[]): boolean {
  return (
    !plan.requirements.length &&
    !plan.project.installable &&
    !plan.apt.length &&
    !setup.length &&
    plan.project.layout === 'flat'
  );
}

/** The image of this key when the engine has it, on this base: a hit, with the build's shortfalls. */
async function reuse(
  input: EnsureInput,
  { plan, base, notes, spec }: Prepared,
  { key, ref }: BuildTarget,
  rec: ChoiceRecord,
): Promise<EnvironmentChoice | null> {
  const existing = await input.engine.inspectImage(ref);
  if (!existing || existing.labels[ENV_LABEL.key] !== key || existing.labels[ENV_LABEL.base] !== base.imageId)
    return null;
  // The key says where the packages came from; an image whose label says otherwise is not this one.
  if (existing.labels[ENV_LABEL.sources] !== sourcesLabel(spec.sources)) return null;
  const recorded = input.ledger
    ? (lastBuildOf(input.ledger, key)?.shortfalls as Shortfall[] | undefined)
    : undefined;
  const shortfalls = recorded ?? shortfallsFromLabel(existing.labels[SHORTFALLS_LABEL]) ?? [];
  rec.write({
    ...emptyRow('hit', key, ref, existing.id, plan.decisions, plan),
    baseImageId: base.imageId,
    sizeBytes: existing.size,
    shortfalls,
  });
  notes.push(...shortfalls.map(shortfallLine));
  const plugins = pluginsFromLabel(existing.labels[PYTEST_PLUGINS_LABEL]);
  return choice('hit', ref, key, rec.seconds(), [], notes, plan, [], shortfalls, plugins);
}

/** Builds the environment of this key; a failed build is recorded (redacted) and thrown. */
async function build(
  input: EnsureInput,
  { spec, plan, base, notes, pip, probe }: Prepared,
  target: BuildTarget,
  rec: ChoiceRecord,
): Promise<EnvironmentChoice> {
  const { engine, repoRoot } = input;
  const { key } = target;
  input.log(
    `building the environment of ${repoRoot} (${plan.requirements.length} requirement(s); key ${key.slice(0, 12)})`,
  );
  // A failure anywhere from here (the build, pruning, the row) is the failed build's record.
  try {
    // Loaded only for a build: a reuse, every one-shot command's path, never needs its code.
    const { buildEnvironment } = await import('../build/builder.js');
    const built = await buildEnvironment({
      engine,
      repoRoot,
      spec,
      key,
      depsKey: target.depsKey,
      base: { ref: base.ref, id: base.imageId },
      pip,
      refreshAptLists: input.mode === 'rebuild',
      ...(probe ? { probe } : {}),
      ...(input.debianLayers === false ? { debianLayers: false } : {}),
      owner: input.owner,
      log: (line) => input.log(pip.redactor.text(line)),
      ...(input.projectName !== undefined ? { projectName: input.projectName } : {}),
    });
    notes.push(...built.shortfalls.map(shortfallLine));
    if (input.projectName === undefined) {
      const pruned = await pruneProjectImages(engine, repoRoot, { keep: 3, current: built.imageId });
      if (pruned.length) notes.push(`pruned ${pruned.length} older environment image(s) of this project`);
    }
    recordBuilt(rec, plan, base.imageId, key, built);
    const { imageRef, sources, resolved, shortfalls, pytestPlugins } = built;
    return choice(
      'built',
      imageRef,
      key,
      rec.seconds(),
      sources,
      notes,
      plan,
      resolved,
      shortfalls,
      pytestPlugins,
    );
  } catch (error) {
    recordFailure(rec, { plan, baseImageId: base.imageId, key, ref: target.ref }, error, pip.redactor);
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
  pytestPlugins: PytestPlugin[] | null,
): EnvironmentChoice {
  const run = pytestRunEnv(plan, pytestPlugins, shortfalls, imagePytestAddopts());
  const said = [...notes, ...run.notes];
  return {
    image,
    key,
    status,
    seconds,
    sources,
    notes: said,
    plan,
    resolved,
    shortfalls,
    pytestPlugins,
    run,
  };
}

/** The sandbox image's own PYTEST_ADDOPTS (recipe.json's env), which the run variables extend. */
function imagePytestAddopts(): string {
  const entry = loadRecipe().env.find((e) => e.startsWith('PYTEST_ADDOPTS='));
  return entry ? entry.slice('PYTEST_ADDOPTS='.length) : '';
}
