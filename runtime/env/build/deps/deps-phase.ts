// Phase 1 of an environment build, in two boxes. The networked one: the venv, the recipe's apt
// packages, the requirements downloaded from the user's pip sources (wheels only; an sdist fetched,
// built offline, download-round.ts) and Debian's packages for the rest. Nothing downloaded is
// installed there, so no Python in it can import a downloaded file, and no repository code runs:
// requirement lines are passed to pip as parsed text, the repository's wheels wait for the offline
// phase. The credentials of the user's index live only in the pip steps' execs. Then a box with no
// network and no secret, FROM the networked box's commit, installs the downloaded files.
import { Readable } from 'node:stream';
import { planSnapshot, snapshotTar } from '../../../workspace/snapshot.js';
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
import type { PlannedRequirement } from '../../plan/types.js';
import { BUILD_DEPS } from './sdist-build-deps.js';
import { sdistWheel } from './sdist-round.js';
import { dpkgLines, normalize } from '../step-output.js';
import { cleanStep, venvStep } from '../steps.js';
import { writeLaunchers } from '../project/venv-launchers.js';

export const WHEELHOUSE = '/opt/piper/wheelhouse';
const MAX_DOWNLOADS = 4 * 1024 ** 3;

/** Returns the dependency image's reference (an intermediate tag the builder removes). */
export async function dependencyPhase(ctx: BuildContext, fromRepoWheels: Set<string>): Promise<string> {
  const { engine, plan, pip, log } = ctx.input;
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
    const userWheelDirs = await putWheelDirs(net, pip.userWheelDirs, named);
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

/** The networked box's downloads as one tar (of DOWNLOADS), or null when pip downloaded nothing. */
export async function takeDownloads(net: BuildBox, fetched: Fetched): Promise<Buffer | null> {
  if (!fetched.pip.lines.size) return null;
  return net.read(DOWNLOADS, MAX_DOWNLOADS);
}

/** The requirements' context for the networked box `net` (its apt and its sdists). */
export function requirementsContext(
  ctx: BuildContext,
  net: BuildBox,
  userWheelDirs: string[],
  wanted: PlannedRequirement[],
  apt: RequirementsContext['apt'] = (name, packages) => runApt(ctx, net, name, packages, false),
): RequirementsContext {
  return {
    wanted,
    plan: ctx.input.plan,
    pip: ctx.input.pip,
    userWheelDirs,
    trustUrls: ctx.input.trustUrls,
    strict: ctx.input.strict,
    resolved: ctx.resolved,
    sources: ctx.sources,
    fail: (m, f) => ctx.fail(m, f),
    check: (s, w) => ctx.check(s, w),
    apt,
    sdist: (requirement, env, nearest) => sdistWheel(ctx, net, env, requirement, nearest),
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
