// Phase 1 of an environment build. Debian's packages are layers of their own (debian-layer.ts),
// kept by the image they go on and the packages: the recipe's first, then those for whatever pip
// could not download. A networked box with no venv, FROM the recipe's layer, downloads the
// requirements from the user's pip sources (wheels only; an sdist fetched, built offline,
// download-round.ts); nothing downloaded is installed there, so no Python in it can import a
// downloaded file, and no repository code runs: requirement lines are passed to pip as parsed text,
// the repository's wheels wait for the offline phase. The credentials of the user's index live only
// in the pip steps' execs. The box is never committed: a box with no network and no secret, FROM
// Debian's layer, makes the venv and installs the downloaded files; its commit is the dependency image.
import { Readable } from 'node:stream';
import { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { debianLayer } from '../debian-layer.js';
import { BUILT, DOWNLOADS, SDISTS } from './download-steps.js';
import {
  fetchRequirements,
  installRequirements,
  type Fetched,
  type RequirementsContext,
} from './requirements-step.js';
import { scanPytestPlugins } from '../project/pytest-plugins-step.js';
import { BUILD_DEPS } from './sdist-build-deps.js';
import {
  keepDownloadedWheels,
  offerCachedWheels,
  requirementsContext,
  takeDownloads,
} from './requirements-context.js';
import { putWheelDirs, WHEELHOUSE } from '../wheel-dirs.js';
import { dpkgLines } from '../step-output.js';
import { cleanStep, venvStep } from '../steps.js';
import { checkInstallWrites, downloadedCodeLabel } from '../offline/downloaded-code.js';
import { writeLaunchers } from '../project/venv-launchers.js';
import { dropIndexFiles, putIndexFiles } from '../network/index-files.js';
import { fetchLocked, installLocked, lockedNames, type LockedFetch } from '../locked/locked-phase.js';
import { LOCKED } from '../locked/locked-steps.js';

/** Returns the dependency image's reference (an intermediate tag the builder removes). */
/** The recipe's packages first, on their own layer: what they provide is met before pip is asked. */
async function recipeAptLayer(ctx: BuildContext, made: string[]): Promise<string> {
  const { plan } = ctx.spec;
  if (!plan.apt.length) return ctx.input.base.ref;
  const recipe = await debianLayer(ctx, ctx.input.base.ref, 'apt (recipe)', plan.apt, true);
  if (recipe.intermediate) made.push(recipe.ref);
  ctx.check(recipe.step, 'apt (recipe)');
  for (const [name, version] of dpkgLines(recipe.step.stdout))
    ctx.resolved.set(`deb:${name}`, { name, version, source: 'debian' });
  ctx.sources.push(`apt (recipe): ${plan.apt.join(' ')}`);
  return recipe.ref;
}

export async function dependencyPhase(ctx: BuildContext, fromRepoWheels: Set<string>): Promise<string> {
  const { engine, pip, log } = ctx.input;
  const { plan } = ctx.spec;
  const made: string[] = [];
  const from = await recipeAptLayer(ctx, made);
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  log(`environment ${ctx.target.ref}: dependencies (network: ${network})`);
  const net = await BuildBox.start(engine, {
    image: from,
    network,
    labels: ctx.labels,
    log,
    redactor: pip.redactor,
  });
  // The offline box starts while the networked one downloads (no secret, no network, nothing in it yet).
  const early = earlyBox(ctx, from);
  const wanted = plan.requirements.filter((q) => !fromRepoWheels.has(q.normalized));
  let got: Omit<Downloaded, 'image' | 'early'>;
  // Debian's packages for what pip could not download: a layer of their own on `from`, which the
  // offline install box starts FROM (the networked box only downloads and is never committed).
  let image = from;
  const debian = async (name: string, packages: string[]) => {
    const layer = await debianLayer(ctx, from, name, packages, false);
    if (layer.intermediate) made.push(layer.ref);
    image = layer.ref;
    return layer.step;
  };
  try {
    // Only the wheels of distributions the plan names: a machine-wide wheel directory can be large.
    const named = new Set(plan.requirements.map((q) => q.normalized));
    const userWheelDirs = await putWheelDirs(net, ctx.spec.pip.userWheels, named);
    await putIndexFiles(net, pip);
    if (pip.network.said) ctx.sources.push(pip.network.said);
    // A locked closure first; the rest is resolved around it, into a venv that already holds it.
    const locked = await fetchLocked(ctx, net, userWheelDirs);
    const rest = wanted.filter((q) => !lockedNames(locked).has(q.normalized));
    const reqs = requirementsContext(ctx, net, userWheelDirs, rest, debian, locked ? 'onto' : 'fresh');
    const offered = await offerCachedWheels(ctx, net, rest);
    const fetched = await fetchRequirements(net, reqs);
    await dropIndexFiles(net);
    const downloads = await takeDownloads(net, fetched);
    await keepDownloadedWheels(ctx, net, offered, downloads);
    got = { reqs, fetched, downloads, locked };
  } catch (error) {
    await early.drop();
    throw error;
  } finally {
    ctx.collect(net);
    ctx.removeLater(net);
  }
  try {
    return await installPhase(ctx, { ...got, image, early });
  } finally {
    for (const ref of made) await engine.removeImage(ref).catch(() => undefined);
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
  await checkInstallWrites(ctx, box, 'the install of the dependencies');
  const tag = ctx.intermediateTag('deps');
  await box.commit({ repo: ctx.target.repo, tag, changes: [downloadedCodeLabel('deps')] });
  return `${ctx.target.repo}:${tag}`;
}

/** apt's lists, pip's caches and the downloads must not reach a layer: what a later phase deletes stays in this one. */
function cleanAll() {
  const clean = cleanStep();
  return {
    ...clean,
    script: `rm -rf ${WHEELHOUSE} ${DOWNLOADS} ${SDISTS} ${BUILT} ${BUILD_DEPS} ${LOCKED}; ${clean.script}`,
  };
}

/** A box started ahead FROM `image`: taken when the install starts from that image, removed otherwise. */
interface EarlyBox {
  take(image: string): Promise<BuildBox | null>;
  drop(): Promise<void>;
}

function earlyBox(ctx: BuildContext, image: string): EarlyBox {
  // A box that fails to start is no failure here: the install starts its own.
  const started = ctx.offlineBox(image).catch(() => null);
  let taken = false;
  return {
    async take(wanted) {
      if (wanted !== image) return null;
      taken = true;
      return started;
    },
    async drop() {
      if (!taken) await (await started)?.remove();
    },
  };
}

interface Downloaded {
  /** The image the install box starts FROM: the sandbox image with Debian's packages. */
  image: string;
  /** The offline box started while the download ran, FROM the image before Debian's packages for what pip lacked. */
  early: EarlyBox;
  reqs: RequirementsContext;
  fetched: Fetched;
  downloads: Buffer | null;
  /** A lockfile's closure downloaded by hash, installed before the rest (locked-phase.ts). */
  locked: LockedFetch | null;
}

/** The venv made and the downloads installed in a box with no network and no secret; its commit is the dependency image. */
async function installPhase(ctx: BuildContext, got: Downloaded): Promise<string> {
  const box = (await got.early.take(got.image)) ?? (await ctx.offlineBox(got.image));
  await got.early.drop();
  try {
    ctx.check(await box.run(venvStep()), 'venv');
    if (got.locked) await installLocked(ctx, box, got.locked);
    if (got.downloads) await box.put('/opt/piper', Readable.from([got.downloads]));
    return await settle(ctx, box, got.reqs, got.fetched);
  } finally {
    ctx.collect(box);
    // Committed (or failed): its removal, 0.3-0.8 s, need not hold up the next phase.
    ctx.removeLater(box);
  }
}
