// Building a project environment (docs/environments.md): an image FROM the sandbox image with the
// project's dependencies in a venv that sees Debian's packages, and the project importable from
// the workspace and installed editable. Each phase is its own container, and repository code never
// runs where there is a network or a secret, and no step with a network starts from an image that
// holds downloaded code (downloaded-code.ts: an install may write only the venv, checked):
//   1. dependencies (network: download only, and Debian; then installed offline): deps-phase.ts
//   1b. for compiled parts, a compiler and headers on top (downloaded apart, installed offline): tools-phase.ts
//   2a. the repository's own wheels (no network, no secret): wheelhouse-phase.ts
//   2b. the project's build (no network, no secret, its result read back as data): project-phase.ts
//   2c. what only the project's METADATA requires, downloaded then installed offline: topup-phase.ts
//   3. the image: a fresh container from 2c/2a/1 that never ran repository code, the project's files
//      written into it by piper from that data, committed as `piper-env-<project>:<key12>`.
// 1, 1b and 2a ran no repository build code: they are kept under the declarations key and reused
// by the next checkout (deps-image.ts); the image of 3 is keyed by the whole snapshot (key.ts).
// Best effort unless strict: what no source meets is relaxed or missing, recorded as shortfalls.
import type { EnvironmentStep, ResolvedPackage } from '../../ledger/environments.js';
import { BuildBox } from './build-box.js';
import { BuildContext, type BuildInput } from './build-context.js';
import { dependencyPhase } from './deps/deps-phase.js';
import { DEPS_RECORD_LABEL, keepDepsImage, reuseDepsImage, type DepsPart } from './deps-image.js';
import { ENV_LABEL, ENV_PATH, VENV, projectId } from '../floor/names.js';
import { filesTar, projectPhase } from './project/project-phase.js';
import { scanPytestPlugins } from './project/pytest-plugins-step.js';
import {
  PYTEST_PLUGINS_LABEL,
  pluginsSentence,
  pluginsLabel,
  projectEntryPoints,
  type PytestPlugin,
} from './project/pytest-entry-points.js';
import { SHORTFALLS_LABEL, shortfallsLabel, type Shortfall } from './shortfall.js';
import { toolsPhase } from './deps/tools-phase.js';
import { topUpPhase } from './deps/topup-phase.js';
import { wheelhousePhase } from './deps/wheelhouse-phase.js';
import { wheelNames } from './wheel-dirs.js';
import { withIndexDate } from './network/dated-build.js';
import { sourcesLabel } from '../spec/spec-schema.js';

export type { BuildInput } from './build-context.js';

export interface BuildOutcome {
  imageRef: string;
  imageId: string;
  sizeBytes: number;
  steps: EnvironmentStep[];
  resolved: ResolvedPackage[];
  sources: string[];
  shortfalls: Shortfall[];
  /** The pytest plugins in the image (also its label), the project's own among them. */
  pytestPlugins: PytestPlugin[];
}

export async function buildEnvironment(given: BuildInput): Promise<BuildOutcome> {
  const dated = await withIndexDate(given);
  const input = dated.input;
  const ctx = new BuildContext(input);
  if (dated.sentence) ctx.sources.push(dated.sentence);
  const intermediate: string[] = [];
  try {
    const { base, tools, wheelsFirst } = await dependencyImages(ctx, intermediate);
    const project = await ctx.phase('project', () => projectPhase(ctx, { on: tools ?? base, wheelsFirst }));
    // What only the project's build code names (its METADATA), installed on top before the commit.
    const topped = project.box ? base : await ctx.phase('top-up', () => topUpPhase(ctx, base, project.files));
    if (topped !== base) intermediate.push(topped);
    projectEntryPoints(project.files, ctx.pytestPlugins);
    ctx.sources.push(pluginsSentence(ctx.pytestPlugins));
    // The project's own box (trusted setup) cannot be made again here: only a fresh one is retried.
    const imageId = project.box
      ? await commitImage(ctx, base, project)
      : await ctx.phase('image', () => commitImage(ctx, topped, project));
    const info = await input.engine.inspectImage(imageId);
    return {
      imageRef: ctx.target.ref,
      imageId,
      sizeBytes: info?.size ?? 0,
      steps: ctx.steps,
      resolved: [...ctx.resolved.values()],
      sources: ctx.sources,
      shortfalls: ctx.shortfalls,
      pytestPlugins: ctx.pytestPlugins,
    };
  } finally {
    await dated.close();
    await Promise.all(ctx.removals);
    // The intermediate tags go; their layers stay as the kept and final images' parents.
    for (const ref of [...intermediate, ...ctx.scratchImages])
      await input.engine.removeImage(ref).catch(() => undefined);
  }
}

/**
 * The images the project builds on, each kept under the declarations key (deps-image.ts): reused
 * when the engine has it, built and kept otherwise. The repository's wheels go in offline on top of
 * the dependencies; a compiled project builds on the dependencies plus the compiler (the wheels
 * then go into its build box), and the environment is made without the compiler.
 */
async function dependencyImages(
  ctx: BuildContext,
  intermediate: string[],
): Promise<{ base: string; tools: string | null; wheelsFirst: boolean }> {
  const provided = wheelNames(ctx.spec.pip.repoWheels);
  const kept = async (part: DepsPart, build: () => Promise<string>) => {
    const reused = await reuseDepsImage(ctx, part);
    if (reused) return reused;
    const built = await build();
    intermediate.push(built);
    return keepDepsImage(ctx, built, part);
  };
  const deps = await kept('deps', () => ctx.phase('dependencies', () => dependencyPhase(ctx, provided)));
  const wheels = ctx.spec.plan.requirements.some((q) => provided.has(q.normalized));
  const base = wheels
    ? await kept('wheels', () => ctx.phase('wheelhouse', () => wheelhousePhase(ctx, deps, provided)))
    : deps;
  const native = ctx.spec.native && ctx.spec.native.kind !== 'rust' ? ctx.spec.native : null;
  const tools = native
    ? await kept('tools', () => ctx.phase('build tools', () => toolsPhase(ctx, deps, native)))
    : null;
  return { base, tools, wheelsFirst: !!tools && wheels };
}

/** The image: the project's box itself (trusted setup), or a never-started container given the checked files. */
async function commitImage(
  ctx: BuildContext,
  base: string,
  project: Awaited<ReturnType<typeof projectPhase>>,
): Promise<string> {
  const { engine, key, repoRoot } = ctx.input;
  const box =
    project.box ??
    (await BuildBox.start(engine, {
      image: base,
      network: 'none',
      labels: ctx.labels,
      log: ctx.input.log,
      createOnly: true,
    }));
  try {
    // Trusted setup commands may have installed anything, the project among it: the box is read again.
    if (project.box) await scanPytestPlugins(ctx, project.box);
    await box.put('/', filesTar(project.files));
    // A rebuild of the same key takes over the tag; the image it leaves untagged goes with it.
    const previous = await engine.inspectImage(ctx.target.ref);
    const imageId = await box.commit({
      repo: ctx.target.repo,
      tag: ctx.target.tag,
      changes: [
        `ENV VIRTUAL_ENV=${VENV} PATH=${ENV_PATH}`,
        'USER 1000:1000',
        'WORKDIR /work',
        'CMD ["python3"]',
        // One label a line: Podman's commit reads `LABEL a=1 b=2` as one label `a` of value `1 b=2`.
        `LABEL ${ENV_LABEL.key}=${key}`,
        `LABEL ${ENV_LABEL.project}=${projectId(repoRoot, ctx.input.projectName)}`,
        `LABEL ${ENV_LABEL.base}=${ctx.input.base.id}`,
        `LABEL ${ENV_LABEL.sources}=${sourcesLabel(ctx.spec.sources)}`,
        // Every part checked by pytest-entry-points.ts ([\w.:-] only); quoted, as it may be empty.
        `LABEL ${PYTEST_PLUGINS_LABEL}="${pluginsLabel(ctx.pytestPlugins)}"`,
        // The dependency image's record is its own; this image's is the ledger's, but for its
        // shortfalls, which a hit through another ledger must still know (broken distributions).
        `LABEL ${DEPS_RECORD_LABEL}=""`,
        `LABEL ${SHORTFALLS_LABEL}=${shortfallsLabel(ctx.shortfalls, (t) => ctx.input.pip.redactor.text(t))}`,
      ],
    });
    if (previous && previous.id !== imageId) await engine.removeImage(previous.id).catch(() => undefined);
    return imageId;
  } finally {
    await box.remove();
  }
}
