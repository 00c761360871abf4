// Phase 2b: the project itself, with no network, no secret and no capabilities but owning files.
// Its build backend is the repository's code and runs as root, so what it leaves is not trusted:
// the container is stopped (nothing it started keeps running), its changes are sorted
// (project-layer.ts), and piper writes the project's install from what it parsed and checked
// (project-files.ts) into a fresh container that never ran the repository's code. Nothing the
// build wrote fails the build: what piper does not use is left out and named. The image is keyed
// by the whole snapshot (key.ts), so none of it reaches another checkout's runs. The build degrades
// instead of stopping (unless strict): an editable install that fails leaves the project imported
// from its source tree through piper's `.pth`. With trusted setup commands (`--trust-repo-config`)
// the box itself becomes the image: they may install anything.
import { snapshotTar, type SnapshotEntry } from '../../../workspace/snapshot.js';
import { inert } from '../../../text/inert.js';
import { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { distributionDirs } from '../deps/installed-versions.js';
import { VENV } from '../../floor/names.js';
import { sortProjectLayer } from './project-layer.js';
import { projectFiles } from './project-files.js';
import { GENERATED_DIR, generatedCandidates, readGenerated } from './generated-files.js';
import { pthText } from './pth-lines.js';
import { commandListStep, parseCommandList } from './system-commands.js';
import { lastLines } from '../step-output.js';
import { cleanStep, projectStep, repoWheelsStep, setupStep } from '../steps.js';
import { builtModules } from './native-finder.js';
import { pipRequirementLine } from '../../plan/deps/pip-line.js';
import { putWheelDirs, wheelNames } from '../wheel-dirs.js';
import { packAbsolute, readTar, type FileToWrite } from '../tar-files.js';

const WORKSPACE_PTH = '_piper_workspace.pth';

/** piper's one `.pth`: the import roots it computed, then its own finders' import lines. */
function piperPth(site: string, roots: string[], imports: string[]): FileToWrite {
  return { path: `${site}/${WORKSPACE_PTH}`, data: Buffer.from(pthText(roots, imports)), mode: 0o644 };
}

/** The project's files for the final image: written by piper from its build, or only piper's .pth. */
export async function projectPhase(
  ctx: BuildContext,
  build: { on: string; wheelsFirst: boolean },
): Promise<{ files: FileToWrite[]; box: BuildBox | null }> {
  const { plan, setup } = ctx.spec;
  const site = distributionDirs(plan.python)[0]!;
  if (!plan.project.installable && !setup.length)
    return { files: [piperPth(site, [plan.project.importRoot], [])], box: null };
  ctx.input.log(`environment ${ctx.target.ref}: the project (network: none)`);
  const box = await ctx.offlineBox(build.on);
  try {
    if (build.wheelsFirst) await installRepoWheels(ctx, box);
    // Listed before any repository file arrives: the names a console script may not take.
    const reserved = parseCommandList((await box.run(commandListStep())).stdout);
    const snapshot = snapshotTar(ctx.input.repoRoot);
    await box.put('/work', snapshot.tar);
    const dirs = snapshotDirs(snapshot.entries);
    const failed = await runProjectSteps(ctx, box);
    if (failed) degrade(ctx, failed, dirs);
    if (setup.length) {
      // Trusted setup: the box itself becomes the image (its key covers the snapshot).
      await box.run(cleanStep());
      await box.stop();
      return { files: [piperPth(site, [plan.project.importRoot], [])], box };
    }
    await box.stop();
    const files = await projectLayer(ctx, box, { site, reserved, entries: snapshot.entries, dirs, failed });
    await box.remove();
    return { files, box: null };
  } catch (error) {
    await box.remove();
    throw error;
  } finally {
    ctx.collect(box);
  }
}

/** What piper writes for the project, from the stopped box's changes. */
async function projectLayer(
  ctx: BuildContext,
  box: BuildBox,
  given: {
    site: string;
    reserved: Set<string>;
    entries: SnapshotEntry[];
    dirs: Set<string>;
    failed: string | null;
  },
): Promise<FileToWrite[]> {
  const { plan } = ctx.spec;
  const { site } = given;
  const bin = `${VENV}/bin`;
  // The snapshot's files and directories are `added` too: put into the box before the build.
  const inSnapshot = new Set([...given.dirs, ...given.entries.map((e) => `/work/${e.path}`)]);
  const layer = sortProjectLayer(await box.changes(), { site, bin, project: plan.project.name, inSnapshot });
  // Read side by side: one archive request per path, each a round trip to the engine.
  const read = new Map(
    await Promise.all(layer.read.map(async (path) => [path, await readTar(await box.read(path))] as const)),
  );
  const { dirs } = given;
  const project = projectFiles(read, {
    site,
    bin,
    project: plan.project.name,
    scripts: layer.scripts,
    reserved: given.reserved,
    dirs,
  });
  const generated = await readGenerated(box, generatedCandidates(layer.generated));
  const built = await builtModules(ctx, box, layer.built, site);
  sayLeftOut(ctx, [...layer.leftOut, ...project.leftOut, ...generated.leftOut]);
  if (generated.files.length)
    ctx.sources.push(
      `project: ${generated.files.length} file(s) its build generated in the checkout, put into /work at run start: ${inert(generated.files.map((f) => f.path.slice(GENERATED_DIR.length + 1)).join(', '))}`,
    );
  if (project.installed)
    ctx.resolved.set(`project:${project.installed.name}`, { ...project.installed, source: 'project' });
  else if (plan.project.installable && !given.failed)
    degrade(ctx, 'its install left no METADATA piper can read', dirs);
  const roots = [plan.project.importRoot, ...project.roots];
  return [
    ...project.files,
    ...generated.files,
    ...built.files,
    piperPth(site, roots, [...project.imports, ...built.imports]),
  ];
}

/** Every directory of the snapshot, as a /work path. */
function snapshotDirs(entries: SnapshotEntry[]): Set<string> {
  const dirs = new Set(['/work']);
  for (const e of entries) {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(`/work/${parts.slice(0, i).join('/')}`);
  }
  return dirs;
}

/** One line naming what the build wrote that the image does not hold. */
function sayLeftOut(ctx: BuildContext, leftOut: string[]): void {
  if (!leftOut.length) return;
  // Paths are the container's, named by the repository's build: inert before any terminal sees them.
  const shown = leftOut.slice(0, 12).map((v) => inert(v));
  const more = leftOut.length > shown.length ? `, and ${leftOut.length - shown.length} more` : '';
  ctx.sources.push(`project: left out of the image, written by its build: ${shown.join('; ')}${more}`);
}

/**
 * The project's install could not be had: the suite still gets the project from its source tree
 * through piper's `.pth` (said once, and a shortfall); strict stops. The only hard stop: an import
 * root the checkout does not have.
 */
function degrade(ctx: BuildContext, why: string, dirs: Set<string>): void {
  const { plan, strict } = ctx.spec;
  const root = plan.project.importRoot;
  const fix = `its build backend (${plan.project.buildBackend ?? 'setuptools'}) must be among the requirements; a project with compiled parts says what to run in .piper/sandbox.toml \`setup\``;
  if (strict) ctx.fail(`installing the project editable failed (strict): ${why}`, fix);
  if (!dirs.has(root))
    ctx.fail(`the project cannot be given to the suite: ${why}, and the checkout has no ${root}`, fix);
  const name = plan.project.name ?? 'the project';
  ctx.shortfalls.push({
    kind: 'degraded',
    name,
    wanted: 'its editable install',
    got: `its source tree (${root})`,
    source: null,
    from: 'the project phase',
    optional: false,
    why: inert(why),
  });
  ctx.sources.push(
    `project: ${inert(why)}; ${name} is imported from ${root} through piper's .pth, with no installed metadata`,
  );
}

/** The setup commands (a failure stops: they are the user's) and the editable install; why it failed, if it did. */
async function runProjectSteps(ctx: BuildContext, box: BuildBox): Promise<string | null> {
  const { plan, setup } = ctx.spec;
  for (const [i, command] of setup.entries()) {
    const r = await box.run(setupStep(i, command));
    if (r.exit_code !== 0)
      ctx.fail(
        `setup command ${i + 1} (${command}) failed with exit ${r.exit_code}: ${lastLines(r.output_tail)}`,
        'fix the command in .piper/sandbox.toml `setup`; it runs as root in /work with no network',
      );
  }
  if (!plan.project.installable) return null;
  // The version a VCS-versioned build asks git for, read by the planner (the workspace has no .git);
  // hatchling's own switch for its trove-classifier check, which refuses a classifier newer than
  // Debian's list of them (nothing the suite needs).
  const install = ctx.spec.checkout.version;
  const env = { ...install.env, HATCH_METADATA_CLASSIFIERS_NO_VERIFY: '1' };
  const r = await box.run(projectStep({ ...install, env }));
  if (r.exit_code === 0) return null;
  const last =
    lastLines(r.output_tail)
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ?? '';
  return `its editable install failed (exit ${r.exit_code}: ${last.trim().slice(0, 200)})`;
}

/** The repository's wheels, in a build box that is not the wheels phase's (a compiled project's). */
async function installRepoWheels(ctx: BuildContext, box: BuildBox): Promise<void> {
  const provided = wheelNames(ctx.spec.pip.repoWheels);
  const wanted = ctx.spec.plan.requirements.filter((q) => provided.has(q.normalized));
  const dirs = await putWheelDirs(box, ctx.spec.pip.repoWheels);
  await box.run(repoWheelsStep(wanted.map(pipRequirementLine), dirs));
}

export function filesTar(files: FileToWrite[]) {
  return packAbsolute(files);
}
