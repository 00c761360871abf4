// Phase 2b: the project itself, with no network, no secret and no capabilities but owning files.
// Its build backend is the repository's code and runs as root, so what it leaves is not trusted:
// the container is stopped (nothing it started keeps running), its changes are checked against
// the allowance (project-layer.ts), the project's install is read back as data and rewritten
// (project-files.ts), and the image is committed from a fresh container that never ran the
// repository's code. With trusted setup commands (`--trust-repo-config`) there is no allowance to
// check — they may install anything — and the environment's key covers the whole snapshot instead.
import { snapshotTar } from '../workspace/snapshot.js';
import { BuildBox } from './build-box.js';
import type { BuildContext } from './build-context.js';
import { distributionDirs } from './installed-versions.js';
import { VENV } from './names.js';
import { checkProjectLayer } from './project-layer.js';
import { projectFiles } from './project-files.js';
import { lastLines } from './step-output.js';
import { cleanStep, projectStep, setupStep } from './steps.js';
import { packAbsolute, readTar, type FileToWrite, type TarFile } from './tar-files.js';

export const WORKSPACE_PTH = '_piper_workspace.pth';

/** The project's files for the final image: read back from its build, or only the workspace .pth. */
export async function projectPhase(
  ctx: BuildContext,
  base: string,
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
    image: base,
    network: 'none',
    labels: ctx.labels,
    log: ctx.input.log,
    confined: true,
    redactor: ctx.input.pip.redactor,
  });
  try {
    await box.put('/work', snapshotTar(ctx.input.repoRoot).tar);
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
    const read = new Map<string, TarFile[]>();
    for (const path of layer.keep) read.set(path, await readTar(await box.read(path)));
    const project = projectFiles(read, where);
    const violations = [...layer.violations, ...project.violations];
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
    if (project.installed)
      ctx.resolved.set(`project:${project.installed.name}`, { ...project.installed, source: 'project' });
    await box.remove();
    return { files: [...project.files, workspacePth], box: null };
  } catch (error) {
    await box.remove();
    throw error;
  } finally {
    ctx.collect(box);
  }
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
  const r = await box.run(projectStep(ctx.input.projectEnv));
  if (r.exit_code !== 0)
    ctx.fail(
      `installing the project editable failed (exit ${r.exit_code}): ${lastLines(r.output_tail)}`,
      `its build backend (${plan.project.buildBackend ?? 'setuptools'}) must be among the requirements; a project with compiled parts says what to run in .piper/sandbox.toml \`setup\``,
    );
}

export function filesTar(files: FileToWrite[]) {
  return packAbsolute(files);
}
