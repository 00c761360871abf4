// Phase 1 of an environment build, the only one with a network: the venv, the recipe's apt
// packages, and the requirements from the user's pip sources and Debian. No repository code runs
// here, and no Python that could import anything the repository supplied: requirement lines are
// passed to pip as parsed text, the repository's wheels wait for the offline phase, versions are
// read from metadata files. The credentials of the user's index live only in the pip step's exec.
import { planSnapshot, snapshotTar } from '../workspace/snapshot.js';
import { BuildBox } from './build-box.js';
import { runApt, type BuildContext } from './build-context.js';
import { satisfyRequirements } from './requirements-step.js';
import { scanPytestPlugins } from './pytest-plugins-step.js';
import { dpkgLines, normalize } from './step-output.js';
import { cleanStep, venvStep } from './steps.js';
import { writeLaunchers } from './venv-launchers.js';

export const WHEELHOUSE = '/opt/piper/wheelhouse';

/** Returns the dependency image's reference (an intermediate tag the builder removes). */
export async function dependencyPhase(ctx: BuildContext, fromRepoWheels: Set<string>): Promise<string> {
  const { engine, plan, pip, log } = ctx.input;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  log(`environment ${ctx.target.ref}: dependencies (network: ${network})`);
  const box = await BuildBox.start(engine, {
    image: ctx.input.base.ref,
    network,
    labels: ctx.labels,
    log,
    redactor: pip.redactor,
  });
  try {
    // Debian's lists and packages go in while the venv is made, when apt may be asked at all.
    if (plan.apt.length || plan.requirements.some((q) => q.debian))
      void ctx.apt.prime(box).catch(() => undefined);
    // Only the wheels of distributions the plan names: a machine-wide wheel directory can be large.
    const named = new Set(plan.requirements.map((q) => q.normalized));
    const userWheelDirs = await putWheelDirs(box, pip.userWheelDirs, named);
    ctx.check(await box.run(venvStep()), 'venv');
    if (plan.apt.length) {
      const r = await runApt(ctx, box, 'apt (recipe)', plan.apt, true);
      ctx.check(r, 'apt (recipe)');
      for (const [name, version] of dpkgLines(r.stdout))
        ctx.resolved.set(`deb:${name}`, { name, version, source: 'debian' });
      ctx.sources.push(`apt (recipe): ${plan.apt.join(' ')}`);
    }
    const outcome = await satisfyRequirements(box, {
      plan,
      pip,
      userWheelDirs,
      trustUrls: ctx.input.trustUrls,
      fromRepoWheels,
      strict: ctx.input.strict,
      resolved: ctx.resolved,
      sources: ctx.sources,
      fail: (m, f) => ctx.fail(m, f),
      check: (s, w) => ctx.check(s, w),
      apt: (name, packages) => runApt(ctx, box, name, packages, false),
    });
    ctx.shortfalls.push(...outcome.shortfalls);
    await writeLaunchers(ctx, box);
    await scanPytestPlugins(ctx, box);
    // apt's lists and pip's caches must not reach a layer: what a later phase deletes stays in this one.
    const clean = cleanStep();
    await box.run({ ...clean, script: `rm -rf ${WHEELHOUSE}; ${clean.script}` });
    const tag = ctx.intermediateTag('deps');
    await box.commit({ repo: ctx.target.repo, tag, changes: [] });
    return `${ctx.target.repo}:${tag}`;
  } finally {
    ctx.collect(box);
    ctx.removeLater(box);
  }
}

/**
 * Wheel directories copied in — their `.whl` files only: a source archive there would be built by
 * pip, and only an index the user named may have its code built in a step with a network.
 */
export async function putWheelDirs(box: BuildBox, dirs: string[], only?: Set<string>): Promise<string[]> {
  const inside: string[] = [];
  if (!dirs.length) return inside;
  await box.run({
    name: 'wheelhouse dirs',
    script: `mkdir -p ${dirs.map((_, i) => `${WHEELHOUSE}/${i}`).join(' ')}`,
    timeoutS: 30,
  });
  for (const [i, dir] of dirs.entries()) {
    const plan = planSnapshot(dir);
    const wheels = plan.entries.filter(
      (e) =>
        e.path.endsWith('.whl') &&
        !e.path.includes('/') &&
        (!only || only.has(normalize(e.path.split('-')[0] ?? ''))),
    );
    await box.put(`${WHEELHOUSE}/${i}`, snapshotTar({ ...plan, entries: wheels, skipped: [] }).tar);
    inside.push(`${WHEELHOUSE}/${i}`);
  }
  return inside;
}
