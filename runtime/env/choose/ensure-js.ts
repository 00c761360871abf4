// The environment of a JavaScript/TypeScript repository: piper's toolchain image (Node and the
// manager), then the project's image on it — reused when the engine has one of this key, built
// otherwise under the build lock (one build per key on this machine) — and a row in the ledger's
// environments table either way, a failed build's too.
import type { DockerEngine } from '../../engine/docker-engine.js';
import { acquireBuildLock } from '../../host/build-lock.js';
import { ensureImage } from '../../images/build.js';
import { RECIPE_LABEL, loadRecipe } from '../../images/recipe.js';
import type { Ledger } from '../../ledger/ledger.js';
import { EnvBuildError } from '../build/build-error.js';
import { SHORTFALLS_LABEL, shortfallLine, shortfallsFromLabel, type Shortfall } from '../build/shortfall.js';
import { ChoiceRecord } from './choice-record.js';
import { ENV_LABEL, envImageRef, projectId } from '../floor/names.js';
import { pruneProjectImages } from './prune.js';
import { downloadPhase } from '../js/build/download-phase.js';
import { JsBuild } from '../js/build/js-build.js';
import { rebuildPhase } from '../js/build/rebuild-phase.js';
import { jsEnvironmentKey } from './js-key.js';
import type { JsPlan } from '../js/plan/js-plan.js';
import { JS_PATH } from '../js/toolchain/layout.js';
import { npmRegistry } from '../js/toolchain/npm-registry.js';
import { ensureToolchain, type Toolchain } from '../js/toolchain/toolchain-image.js';
import { nodeBuild, providedMajors } from '../js/toolchain/versions.js';

export interface JsEnsureInput {
  engine: DockerEngine;
  ledger: Ledger | null;
  repoRoot: string;
  plan: JsPlan;
  /** rebuild: build again; strict: a script failing offline fails the build. */
  mode: 'auto' | 'rebuild' | 'strict';
  owner: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  projectName?: string;
}

export interface JsEnvironment {
  image: string;
  key: string;
  status: 'built' | 'hit';
  seconds: number;
  sources: string[];
  notes: string[];
  shortfalls: Shortfall[];
  plan: JsPlan;
  /** What every run sets: the plan's test variables and PATH (the tree's bin, then piper's Node). */
  runEnv: Record<string, string>;
  sizeBytes: number;
  toolchain: { ref: string; versions: string[]; built: boolean };
}

export async function ensureJsEnvironment(input: JsEnsureInput): Promise<JsEnvironment> {
  const rec = new ChoiceRecord(input);
  const { plan } = input;
  if (!nodeBuild(plan.node.major))
    throw new EnvBuildError(
      `Node ${plan.node.major} (${plan.node.from}) is not one piper provides (${providedMajors().join(', ')})`,
      'name a provided major in .nvmrc or the recipe',
      [],
      [],
    );
  const base = await sandboxBase(input.engine, input.log);
  const toolchain = await ensureToolchain({
    engine: input.engine,
    base,
    nodeMajor: plan.node.major,
    manager: plan.manager.name,
    managerVersion: plan.manager.version,
    owner: input.owner,
    log: input.log,
    ...(input.env ? { env: input.env } : {}),
  });
  const key = jsEnvironmentKey(plan, toolchain.key);
  const target = envImageRef(input.repoRoot, key, input.projectName);
  const hit =
    input.mode === 'rebuild' ? null : await reuse(input, rec, { key, ref: target.ref, base, toolchain });
  if (hit) return hit;
  const lock = await acquireBuildLock(`${target.repo}-${key}`, {
    log: input.log,
    ...(input.env ? { env: input.env } : {}),
  });
  try {
    const made = lock.waited ? await reuse(input, rec, { key, ref: target.ref, base, toolchain }) : null;
    return made ?? (await build(input, rec, { key, target, base, toolchain }));
  } finally {
    lock.release();
  }
}

interface At {
  key: string;
  base: { ref: string; id: string };
  toolchain: Toolchain;
}

async function reuse(
  input: JsEnsureInput,
  rec: ChoiceRecord,
  at: At & { ref: string },
): Promise<JsEnvironment | null> {
  const found = await input.engine.inspectImage(at.ref);
  if (!found || found.labels[ENV_LABEL.key] !== at.key || found.labels[ENV_LABEL.base] !== at.base.id)
    return null;
  const shortfalls = shortfallsFromLabel(found.labels[SHORTFALLS_LABEL]) ?? [];
  rec.write(row('hit', input.plan, at, at.ref, found.id, found.size, [], shortfalls, [], null));
  return result(input, rec, 'hit', at, at.ref, [], shortfalls, found.size);
}

async function build(
  input: JsEnsureInput,
  rec: ChoiceRecord,
  at: At & { target: { repo: string; tag: string; ref: string } },
): Promise<JsEnvironment> {
  const env = input.env ?? process.env;
  const b = new JsBuild({
    engine: input.engine,
    repoRoot: input.repoRoot,
    plan: input.plan,
    toolchain: at.toolchain,
    base: at.base,
    registry: npmRegistry(env),
    key: at.key,
    target: at.target,
    strict: input.mode === 'strict',
    owner: input.owner,
    log: (line) => input.log(line),
    env,
    projectLabel: projectId(input.repoRoot, input.projectName),
  });
  b.steps.push(...at.toolchain.steps);
  b.sources.push(
    `toolchain: ${at.toolchain.versions.join(', ')} (${at.toolchain.built ? 'built' : 'reused'} ${at.toolchain.ref})`,
  );
  input.log(
    `building the JavaScript environment of ${input.repoRoot} (${input.plan.manager.name}; key ${at.key.slice(0, 12)})`,
  );
  let deps: string | null = null;
  try {
    deps = await downloadPhase(b);
    const imageId = await rebuildPhase(b, deps);
    const info = await input.engine.inspectImage(imageId);
    const size = info?.size ?? 0;
    rec.redactor = b.redactor;
    rec.write(
      row('built', input.plan, at, at.target.ref, imageId, size, b.steps, b.shortfalls, b.sources, null),
    );
    const notes: string[] = [];
    if (input.projectName === undefined) {
      const pruned = await pruneProjectImages(input.engine, input.repoRoot, { keep: 3, current: imageId });
      if (pruned.length) notes.push(`pruned ${pruned.length} older environment image(s) of this project`);
    }
    return result(input, rec, 'built', at, at.target.ref, b.sources, b.shortfalls, size, notes);
  } catch (error) {
    rec.redactor = b.redactor;
    const message = b.redactor.text((error as Error).message);
    rec.write(row('failed', input.plan, at, at.target.ref, null, null, b.steps, [], b.sources, message));
    if (error instanceof Error) error.message = message;
    throw error;
  } finally {
    // The intermediate tag goes; its layers stay as the environment's parents.
    if (deps) await input.engine.removeImage(deps).catch(() => undefined);
  }
}

function row(
  status: 'built' | 'hit' | 'failed',
  plan: JsPlan,
  at: At,
  image: string,
  imageId: string | null,
  sizeBytes: number | null,
  steps: JsBuild['steps'],
  shortfalls: Shortfall[],
  sources: string[],
  error: string | null,
) {
  const inputs = [plan.lockfile, ...plan.manifests].filter((f) => f !== null);
  const decisions = [...plan.decisions, `toolchain ${at.toolchain.versions.join(', ')}`];
  return {
    key: at.key,
    status,
    image,
    imageId,
    baseImageId: at.base.id,
    sizeBytes,
    inputs,
    decisions,
    plan,
    steps,
    resolved: [],
    sources,
    shortfalls,
    error,
  };
}

function result(
  input: JsEnsureInput,
  rec: ChoiceRecord,
  status: 'built' | 'hit',
  at: At,
  image: string,
  sources: string[],
  shortfalls: Shortfall[],
  sizeBytes: number,
  notes: string[] = [],
): JsEnvironment {
  return {
    image,
    key: at.key,
    status,
    seconds: rec.seconds(),
    sources,
    notes: [...notes, ...shortfalls.map(shortfallLine)],
    shortfalls,
    plan: input.plan,
    runEnv: { ...input.plan.testEnv, PATH: JS_PATH },
    sizeBytes,
    toolchain: { ref: at.toolchain.ref, versions: at.toolchain.versions, built: at.toolchain.built },
  };
}

/** The sandbox image the toolchain is built FROM (piper's own tag for the current recipe), built when missing. */
async function sandboxBase(
  engine: DockerEngine,
  log: (line: string) => void,
): Promise<{ ref: string; id: string }> {
  const recipe = loadRecipe();
  const tagged = await engine.inspectImage(recipe.ref);
  if (tagged && tagged.labels[RECIPE_LABEL] === recipe.hash) return { ref: recipe.ref, id: tagged.id };
  const built = await ensureImage(engine, { log });
  return { ref: built.ref, id: built.imageId };
}
