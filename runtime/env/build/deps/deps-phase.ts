// Phase 1 of an environment build, in two boxes. The networked one: the venv, the recipe's apt
// packages, the requirements downloaded from the user's pip sources (wheels only; an sdist fetched,
// built offline, download-round.ts) and Debian's packages for the rest. Nothing downloaded is
// installed there, so no Python in it can import a downloaded file, and no repository code runs:
// requirement lines are passed to pip as parsed text, the repository's wheels wait for the offline
// phase. The credentials of the user's index live only in the pip steps' execs. Then a box with no
// network and no secret, FROM the networked box's commit, installs the downloaded files.
import { Readable } from 'node:stream';
import { BuildBox } from '../build-box.js';
import { runApt, type BuildContext } from '../build-context.js';
import { BUILT, DOWNLOADS, SDISTS } from './download-steps.js';
import {
  fetchRequirements,
  installRequirements,
  type Fetched,
  type RequirementsContext,
} from './requirements-step.js';
import { scanPytestPlugins } from '../project/pytest-plugins-step.js';
import { BUILD_DEPS } from './sdist-build-deps.js';
import { requirementsContext, takeDownloads } from './requirements-context.js';
import { putWheelDirs, WHEELHOUSE } from '../wheel-dirs.js';
import { dpkgLines } from '../step-output.js';
import { cleanStep, venvStep } from '../steps.js';
import { writeLaunchers } from '../project/venv-launchers.js';

/** Returns the dependency image's reference (an intermediate tag the builder removes). */
export async function dependencyPhase(ctx: BuildContext, fromRepoWheels: Set<string>): Promise<string> {
  const { engine, pip, log } = ctx.input;
  const { plan } = ctx.spec;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  log(`environment ${ctx.target.ref}: dependencies (network: ${network})`);
  const net = await BuildBox.start(engine, {
    image: ctx.input.base.ref,
    network,
    labels: ctx.labels,
    log,
    redactor: pip.redactor,
  });
  const wanted = plan.requirements.filter((q) => !fromRepoWheels.has(q.normalized));
  let fetched: Fetched;
  let downloads: Buffer | null;
  let reqs: RequirementsContext;
  const netTag = ctx.intermediateTag('net');
  try {
    // Debian's lists and packages go in while the venv is made, when apt may be asked at all.
    if (plan.apt.length || plan.requirements.some((q) => q.debian))
      void ctx.apt.prime(net).catch(() => undefined);
    // Only the wheels of distributions the plan names: a machine-wide wheel directory can be large.
    const named = new Set(plan.requirements.map((q) => q.normalized));
    const userWheelDirs = await putWheelDirs(net, ctx.spec.pip.userWheels, named);
    ctx.check(await net.run(venvStep()), 'venv');
    if (plan.apt.length) {
      const r = await runApt(ctx, net, 'apt (recipe)', plan.apt, true);
      ctx.check(r, 'apt (recipe)');
      for (const [name, version] of dpkgLines(r.stdout))
        ctx.resolved.set(`deb:${name}`, { name, version, source: 'debian' });
      ctx.sources.push(`apt (recipe): ${plan.apt.join(' ')}`);
    }
    reqs = requirementsContext(ctx, net, userWheelDirs, wanted);
    fetched = await fetchRequirements(net, reqs);
    downloads = await takeDownloads(net, fetched);
    // Nothing downloaded, nothing to install: the box holds only what the venv and apt made.
    if (!downloads) return await settle(ctx, net, reqs, fetched);
    await net.run(cleanAll());
    await net.commit({ repo: ctx.target.repo, tag: netTag, changes: [] });
  } finally {
    ctx.collect(net);
    ctx.removeLater(net);
  }
  try {
    return await installPhase(ctx, `${ctx.target.repo}:${netTag}`, { reqs, fetched, downloads });
  } finally {
    await engine.removeImage(`${ctx.target.repo}:${netTag}`).catch(() => undefined);
  }
}

/** What is installed read, shortfalls recorded, the box cleaned and committed as the dependency image. */
async function settle(
  ctx: BuildContext,
  box: BuildBox,
  reqs: RequirementsContext,
  fetched: Fetched,
): Promise<string> {
  const outcome = await installRequirements(box, reqs, fetched);
  ctx.shortfalls.push(...outcome.shortfalls);
  await writeLaunchers(ctx, box);
  await scanPytestPlugins(ctx, box);
  await box.run(cleanAll());
  const tag = ctx.intermediateTag('deps');
  await box.commit({ repo: ctx.target.repo, tag, changes: [] });
  return `${ctx.target.repo}:${tag}`;
}

/** apt's lists, pip's caches and the downloads must not reach a layer: what a later phase deletes stays in this one. */
function cleanAll() {
  const clean = cleanStep();
  return {
    ...clean,
    script: `rm -rf ${WHEELHOUSE} ${DOWNLOADS} ${SDISTS} ${BUILT} ${BUILD_DEPS}; ${clean.script}`,
  };
}

/** The downloads installed in a box with no network and no secret; its commit is the dependency image. */
async function installPhase(
  ctx: BuildContext,
  image: string,
  got: { reqs: RequirementsContext; fetched: Fetched; downloads: Buffer | null },
): Promise<string> {
  const box = await ctx.offlineBox(image);
  try {
    if (got.downloads) await box.put('/opt/piper', Readable.from([got.downloads]));
    return await settle(ctx, box, got.reqs, got.fetched);
  } finally {
    ctx.collect(box);
    // Before its image's tag goes: an image a container uses keeps its tag.
    await box.remove();
  }
}
