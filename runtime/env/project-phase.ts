// Phase 2b: the project itself, with no network, no secret and no capabilities but owning files.
// Its build backend is the repository's code and runs as root, so what it leaves is not trusted:
// the container is stopped (nothing it started keeps running), its changes are checked against
// the allowance (project-layer.ts), the project's install is read back as data and rewritten
// (project-files.ts), and the image is committed from a fresh container that never ran the
// repository's code. With trusted setup commands (`--trust-repo-config`) there is no allowance to
// check — they may install anything — and the environment's key covers the whole snapshot instead.
import { snapshotTar } from '../workspace/snapshot.js';
import { inert } from '../text/inert.js';
import { BuildBox } from './build-box.js';
import type { BuildContext } from './build-context.js';
import { distributionDirs } from './installed-versions.js';
import { VENV } from './names.js';
import { checkProjectLayer } from './project-layer.js';
import { projectFiles, type ProjectFiles } from './project-files.js';
import { lastLines } from './step-output.js';
import { cleanStep, projectStep, repoWheelsStep, setupStep } from './steps.js';
import { putWheelDirs } from './deps-phase.js';
import { BUILT_DIR, moduleOfBuilt, nativeFinderSource } from './native-finder.js';
import { pipRequirementLine } from './plan/pip-line.js';
import { repoWheelNames } from './wheelhouse-phase.js';
import { projectInstallFor } from './vcs-version.js';
import { packAbsolute, readTar, type FileToWrite, type TarFile } from './tar-files.js';

const WORKSPACE_PTH = '_piper_workspace.pth';

/** The project's files for the final image: read back from its build, or only the workspace .pth. */
export async function projectPhase(
  ctx: BuildContext,
  build: { on: string; wheelsFirst: boolean },
): Promise<{ files: FileToWrite[]; box: BuildBox | null }> {
  const { plan, setup } = ctx.input;
  const site = distributionDirs(plan.python)[0]!;
  const workspacePth: FileToWrite = {
    path: `${site}/${WORKSPACE_PTH}`,
    data: Buffer.from(`${plan.project.importRoot}\n`),
    mode: 0o644,
  };
  if (!plan.project.installable && !setup.length) return { files: [workspacePth], box: null };
  ctx.input.log(`environment ${ctx.target.ref}: the project (network: none)`);
  const box = await BuildBox.start(ctx.input.engine, {
    image: build.on,
    network: 'none',
    labels: ctx.labels,
    log: ctx.input.log,
    confined: true,
    redactor: ctx.input.pip.redactor,
  });
  try {
    if (build.wheelsFirst) await installRepoWheels(ctx, box);
    const snapshot = snapshotTar(ctx.input.repoRoot);
    await box.put('/work', snapshot.tar);
    await runProjectSteps(ctx, box);
    if (setup.length) {
      // Trusted setup: the box itself becomes the image (its key covers the snapshot).
      await box.run(cleanStep());
      await box.stop();
      return { files: [workspacePth], box };
    }
    await box.stop();
    const where = { site, bin: `${VENV}/bin`, project: plan.project.name };
    const layer = checkProjectLayer(await box.changes(), where);
    // Read side by side: one archive request per kept path, each a round trip to the engine.
    const read = new Map<string, TarFile[]>(
      await Promise.all(layer.keep.map(async (path) => [path, await readTar(await box.read(path))] as const)),
    );
    const project = projectFiles(read, where);
    const inSnapshot = new Set(snapshot.entries.map((e) => `/work/${e.path}`));
    const built = await builtModules(
      ctx,
      box,
      layer.built.filter((p) => !inSnapshot.has(p)),
    );
    refuseUntrustedBuild(ctx, layer.violations, project);
    if (project.installed)
      ctx.resolved.set(`project:${project.installed.name}`, { ...project.installed, source: 'project' });
    await box.remove();
    return { files: [...project.files, ...built, workspacePth], box: null };
  } catch (error) {
    await box.remove();
    throw error;
  } finally {
    ctx.collect(box);
  }
}

/** The build's leftovers outside the allowance, or a project that installed nothing: the build fails. */
function refuseUntrustedBuild(ctx: BuildContext, layerViolations: string[], project: ProjectFiles): void {
  const { plan } = ctx.input;
  // Paths are the container's, named by the repository's build: inert before any terminal sees them.
  const violations = [...layerViolations, ...project.violations].map((v) => inert(v));
  if (violations.length)
    ctx.fail(
      `the project's build left ${violations.length} change(s) outside what an environment may hold (its dist-info, .pth paths into /work, setuptools' finder, its console scripts):\n${violations
        .slice(0, 20)
        .map((v) => `  ${v}`)
        .join('\n')}`,
      "a build backend must not write outside the venv's site-packages; what the project needs installed system-wide goes in .piper/sandbox.toml `apt` or trusted `setup` commands",
    );
  if (plan.project.installable && !project.installed)
    ctx.fail(
      `the project installed but no METADATA of ${plan.project.name ?? 'it'} was found in the venv`,
      'check [project].name in pyproject.toml',
    );
}

async function runProjectSteps(ctx: BuildContext, box: BuildBox): Promise<void> {
  const { plan, setup } = ctx.input;
  for (const [i, command] of setup.entries()) {
    const r = await box.run(setupStep(i, command));
    if (r.exit_code !== 0)
      ctx.fail(
        `setup command ${i + 1} (${command}) failed with exit ${r.exit_code}: ${lastLines(r.output_tail)}`,
        'fix the command in .piper/sandbox.toml `setup`; it runs as root in /work with no network',
      );
  }
  if (!plan.project.installable) return;
  // The version a VCS-versioned build asks git for, read on the host (the workspace has no .git).
  const r = await box.run(projectStep(projectInstallFor(ctx.input.repoRoot, plan.project.name)));
  if (r.exit_code !== 0)
    ctx.fail(
      `installing the project editable failed (exit ${r.exit_code}): ${lastLines(r.output_tail)}`,
      `its build backend (${plan.project.buildBackend ?? 'setuptools'}) must be among the requirements; a project with compiled parts says what to run in .piper/sandbox.toml \`setup\``,
    );
}

/**
 * The compiled modules the build left in /work, kept at BUILT_DIR with a finder piper writes (see
 * native-finder.ts). None when the project has compiled parts is its pure-Python fallback: said.
 */
async function builtModules(ctx: BuildContext, box: BuildBox, paths: string[]): Promise<FileToWrite[]> {
  const { plan, native } = ctx.input;
  if (!native || native.kind === 'rust') return [];
  if (!paths.length) {
    ctx.sources.push(
      `native: ${native.evidence}, but the build made no compiled module; its pure-Python fallback is used`,
    );
    return [];
  }
  const files: FileToWrite[] = [];
  const modules: Record<string, string> = {};
  for (const path of paths) {
    const module = moduleOfBuilt(path, [plan.project.importRoot, '/work']);
    const entry = (await readTar(await box.read(path), 512 << 20)).find((e) => e.type === 'file');
    if (!module || !entry) continue;
    const target = `${BUILT_DIR}${path.slice('/work'.length)}`;
    files.push({ path: target, data: entry.data, mode: 0o755 });
    modules[module] = target;
  }
  const site = distributionDirs(plan.python)[0]!;
  files.push(
    { path: `${site}/_piper_built_finder.py`, data: Buffer.from(nativeFinderSource(modules)), mode: 0o644 },
    {
      path: `${site}/_piper_built.pth`,
      data: Buffer.from('import _piper_built_finder; _piper_built_finder.install()\n'),
      mode: 0o644,
    },
  );
  ctx.sources.push(`native: built ${Object.keys(modules).sort().join(', ')} (${native.evidence})`);
  return files;
}

/** The repository's wheels, in a build box that is not the wheels phase's (a compiled project's). */
async function installRepoWheels(ctx: BuildContext, box: BuildBox): Promise<void> {
  const provided = repoWheelNames(ctx.input.pip.repoWheelDirs);
  const wanted = ctx.input.plan.requirements.filter((q) => provided.has(q.normalized));
  const dirs = await putWheelDirs(box, ctx.input.pip.repoWheelDirs);
  await box.run(repoWheelsStep(wanted.map(pipRequirementLine), dirs));
}

export function filesTar(files: FileToWrite[]) {
  return packAbsolute(files);
}
