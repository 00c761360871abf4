// Building a project environment (docs/architecture.md, "Environments"): an image FROM the sandbox
// image with the project's dependencies in a venv that sees Debian's packages, and the project importable
// from the workspace and installed editable. Two containers, so the repository's own code never
// runs with a network:
//   1. network (the engine's bridge, or the host's where it has none): the venv, the recipe's apt
//      packages, then each requirement from pip (the user's index or wheelhouse) and, for whatever
//      that left unsatisfied, from Debian's packages by their PyPI → Debian name. Only requirement
//      lines and wheel files enter this container, never the project.
//   2. no network, capabilities dropped: the workspace snapshot, the recipe's setup commands, the
//      editable install with the project's own backend, the inventory; then the workspace is
//      removed and the container committed as `piper-env-<project>:<key12>`.
// Nothing is left unsatisfied silently: a requirement no source meets fails the build, naming it,
// its specifier and what every source said; no image is tagged then.
import type { DockerEngine } from '../engine/docker-engine.js';
import type { EnvironmentStep, ResolvedPackage } from '../ledger/environments.js';
import { LABEL } from '../sandbox/hardening.js';
import { planSnapshot, snapshotTar } from '../workspace/snapshot.js';
import { EnvBuildError } from './build-error.js';
import { BuildBox, type StepResult } from './build-box.js';
import { installedVersionsByName, satisfyRequirements } from './requirements-step.js';
import { ENV_LABEL, ENV_PATH, VENV, envImageRef, projectId } from './names.js';
import type { PipSettings } from './pip-settings.js';
import { dpkgLines, lastLines, normalize, pipList } from './step-output.js';
import type { EnvPlan } from './plan/types.js';
import { projectInstallFor } from './vcs-version.js';
import { aptStep, cleanStep, listStep, projectStep, setupStep, venvStep } from './steps.js';

export interface BuildInput {
  engine: DockerEngine;
  repoRoot: string;
  plan: EnvPlan;
  key: string;
  base: { ref: string; id: string };
  pip: PipSettings;
  /** Setup commands to run (the recipe's, when the user trusts them; else none). */
  setup: string[];
  /**
   * Whether `name @ URL` requirements may go to pip: a URL the repository names is a server of its
   * choosing, fetched (and built) with a network, so it needs the user's trust like an index URL.
   */
  trustUrls: boolean;
  owner: string;
  log: (line: string) => void;
}

export interface BuildOutcome {
  imageRef: string;
  imageId: string;
  sizeBytes: number;
  steps: EnvironmentStep[];
  resolved: ResolvedPackage[];
  sources: string[];
}

const WHEELHOUSE = '/opt/piper/wheelhouse';

export async function buildEnvironment(input: BuildInput): Promise<BuildOutcome> {
  const { engine, plan, log } = input;
  const target = envImageRef(input.repoRoot, input.key);
  const labels = { [LABEL.owner]: input.owner, 'piper.env.build': input.key };
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  const steps: EnvironmentStep[] = [];
  const sources: string[] = [];
  const fail = (message: string, fix: string): never => {
    throw new EnvBuildError(message, fix, steps, sources);
  };
  const depsTag = `${target.tag}-deps`;
  let depsImage: string | null = null;

  // Phase 1: dependencies, with a network.
  log(`environment ${target.ref}: dependencies (network: ${network})`);
  const box1 = await BuildBox.start(engine, { image: input.base.ref, network, labels, log });
  const resolved = new Map<string, ResolvedPackage>();
  try {
    const wheelDirs = await putWheelhouses(box1, input.pip);
    const check = async (step: StepResult, what: string) => {
      if (step.exit_code !== 0)
        fail(
          `environment step ${what} failed (exit ${step.exit_code}): ${lastLines(step.output_tail)}`,
          "every step's command and output are in the ledger (table environments, column steps) of this repository",
        );
    };
    await check(await box1.run(venvStep()), 'venv');
    if (plan.apt.length) {
      const r = await box1.run(aptStep('apt (recipe)', plan.apt, true));
      await check(r, 'apt (recipe)');
      for (const [pkg, version] of dpkgLines(r.stdout))
        resolved.set(`deb:${pkg}`, { name: pkg, version, source: 'debian' });
      sources.push(`apt (recipe): ${plan.apt.join(' ')}`);
    }

    await satisfyRequirements(box1, {
      plan,
      pip: input.pip,
      wheelDirs,
      trustUrls: input.trustUrls,
      resolved,
      sources,
      fail,
      check,
    });
    // apt's lists and pip's caches must not reach a layer: what phase 2 deletes stays in this one.
    const clean1 = cleanStep();
    await box1.run({ ...clean1, script: `rm -rf ${WHEELHOUSE}; ${clean1.script}` });
    steps.push(...box1.steps);
    box1.steps.length = 0;
    depsImage = await box1.commit({ repo: target.repo, tag: depsTag, changes: [] });
  } finally {
    steps.push(...box1.steps);
    await box1.remove();
  }

  // Phase 2: the project, with no network.
  log(`environment ${target.ref}: the project (network: none)`);
  const box2 = await BuildBox.start(engine, {
    image: `${target.repo}:${depsTag}`,
    network: 'none',
    labels,
    log,
    confined: true,
  });
  try {
    await box2.put('/work', snapshotTar(input.repoRoot).tar);
    for (const [i, command] of input.setup.entries()) {
      const r = await box2.run(setupStep(i, command));
      if (r.exit_code !== 0)
        fail(
          `setup command ${i + 1} (${command}) failed with exit ${r.exit_code}: ${lastLines(r.output_tail)}`,
          'fix the command in .piper/sandbox.toml `setup`; it runs as root in /work with no network',
        );
    }
    // [real-fixtures hook] the VCS version, read on the host now (not in the key: a hit keeps the build's).
    const install = projectInstallFor(input.repoRoot, plan.project.name);
    const r = await box2.run(projectStep(plan.project.importRoot, plan.project.installable, install));
    if (r.exit_code !== 0)
      fail(
        `installing the project editable failed (exit ${r.exit_code}): ${lastLines(r.output_tail)}`,
        `its build backend (${plan.project.buildBackend ?? 'setuptools'}) must be among the requirements; a project with compiled parts says what to run in .piper/sandbox.toml \`setup\``,
      );
    if (plan.project.installable && plan.project.name) {
      const v = await installedVersionsByName(box2, 'project metadata', [plan.project.name]);
      const version = v[plan.project.name];
      if (!version)
        fail(
          `the project installed but importlib.metadata does not find ${plan.project.name}`,
          'check [project].name in pyproject.toml',
        );
      resolved.set(`project:${plan.project.name}`, {
        name: plan.project.name,
        version: version!,
        source: 'project',
      });
    }
    const list = await box2.run(listStep());
    for (const p of pipList(list.stdout)) {
      const n = normalize(p.name);
      if (!resolved.has(n) && normalize(plan.project.name ?? '') !== n)
        resolved.set(n, { name: p.name, version: p.version, source: 'pip' });
    }
    const clean = cleanStep();
    await box2.run({ ...clean, script: `rm -rf ${WHEELHOUSE}; ${clean.script}` });
    // A rebuild of the same key takes over the tag; the image it leaves untagged goes with it.
    const previous = await engine.inspectImage(target.ref);
    const imageId = await box2.commit({
      repo: target.repo,
      tag: target.tag,
      changes: [
        `ENV VIRTUAL_ENV=${VENV} PATH=${ENV_PATH}`,
        'USER 1000:1000',
        'WORKDIR /work',
        'CMD ["python3"]',
        `LABEL ${ENV_LABEL.key}=${input.key} ${ENV_LABEL.project}=${projectId(input.repoRoot)} ${ENV_LABEL.base}=${input.base.id}`,
      ],
    });
    if (previous && previous.id !== imageId) await engine.removeImage(previous.id).catch(() => undefined);
    const info = await engine.inspectImage(imageId);
    return {
      imageRef: target.ref,
      imageId,
      sizeBytes: info?.size ?? 0,
      steps: [...steps, ...box2.steps],
      resolved: [...resolved.values()],
      sources,
    };
  } finally {
    steps.push(...box2.steps);
    await box2.remove();
    // The intermediate tag goes; its layers stay as the final image's parent.
    if (depsImage) await engine.removeImage(`${target.repo}:${depsTag}`).catch(() => undefined);
  }
}

/**
 * Wheel directories (the recipe's find_links inside the repo, PIP_FIND_LINKS directories on the host)
 * copied in — their `.whl` files only: a source archive there would be built by pip in this
 * networked step, and a repository's own code must never run with a network.
 */
async function putWheelhouses(box: BuildBox, pip: PipSettings): Promise<string[]> {
  const dirs = pip.findLinkDirs;
  const inside: string[] = [];
  if (!dirs.length) return inside;
  await box.run({
    name: 'wheelhouse',
    script: `mkdir -p ${dirs.map((_, i) => `${WHEELHOUSE}/${i}`).join(' ')}`,
    timeoutS: 30,
  });
  for (const [i, dir] of dirs.entries()) {
    const plan = planSnapshot(dir);
    const wheels = plan.entries.filter((e) => e.path.endsWith('.whl') && !e.path.includes('/'));
    await box.put(`${WHEELHOUSE}/${i}`, snapshotTar({ ...plan, entries: wheels, skipped: [] }).tar);
    inside.push(`${WHEELHOUSE}/${i}`);
  }
  return inside;
}
