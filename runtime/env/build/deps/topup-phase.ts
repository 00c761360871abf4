// Phase 2c: the project's own runtime requirements that only its build code names (setup.py's
// install_requires, a backend's dynamic dependencies), read from the METADATA the project phase
// read back, as data (metadata-requirements.ts: markers evaluated, URLs refused). Those the plan did
// not already ask for and the image does not already meet (with sources = index, the venv: a Debian
// package does not stand in for one) are downloaded in a networked box that holds nothing downloaded (the sandbox image, no venv), Debian's packages for the rest are fetched
// there too and installed by apt in a box of the image with no network (apt-offline.ts: the image
// holds downloaded code), and the downloads are installed offline, the install checked to have
// written only the venv (downloaded-code.ts). The result is keyed by the requirement list.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { BuildBox } from '../build-box.js';
import { aptOffline } from '../offline/apt-offline.js';
import { checkInstallWrites, downloadedCodeLabel } from '../offline/downloaded-code.js';
import type { BuildContext } from '../build-context.js';
import {
  keepDownloadedWheels,
  offerCachedWheels,
  requirementsContext,
  takeDownloads,
} from './requirements-context.js';
import { putWheelDirs } from '../wheel-dirs.js';
import { dropIndexFiles, putIndexFiles } from '../network/index-files.js';
import { DOWNLOADS } from './download-steps.js';
import { parseVersionsScan, versionsScanStep } from './installed-versions.js';
import { metadataRequirements } from './metadata-requirements.js';
import { isTestName } from '../../plan/tests/test-names.js';
import type { PlannedRequirement } from '../../plan/types.js';
import { scanPytestPlugins } from '../project/pytest-plugins-step.js';
import {
  fetchRequirements,
  installRequirements,
  type Fetched,
  type RequirementsContext,
} from './requirements-step.js';
import { normalize, unsatisfied } from '../step-output.js';
import { cleanStep } from '../steps.js';
import { VENV } from '../../floor/names.js';
import type { FileToWrite } from '../tar-files.js';
import { providedExtras, requiresDist } from './wheel-metadata.js';

const FROM = "the project's METADATA (Requires-Dist)";

/** Returns the image to commit the environment from: a top-up on `base`, or `base` itself. */
export async function topUpPhase(ctx: BuildContext, base: string, files: FileToWrite[]): Promise<string> {
  const wanted = topUpRequirements(ctx, files);
  if (!wanted?.length) return base;
  const { plan } = ctx.spec;
  const check = await offlineBox(ctx, base);
  let missing: PlannedRequirement[];
  try {
    // sources = index: what only Debian's directories hold is not met (as in a clean venv).
    const scan = (await check.run(versionsScanStep('versions', plan.python))).stdout;
    const versions = parseVersionsScan(scan, ctx.spec.sources.used === 'index' ? VENV : undefined);
    missing = unsatisfied(wanted, Object.fromEntries(versions));
  } finally {
    ctx.collect(check);
    await check.remove();
  }
  if (!missing.length) {
    ctx.sources.push(`top-up: the project's metadata asks for nothing the image lacks`);
    return base;
  }
  const key = createHash('sha256')
    .update(JSON.stringify(missing.map((q) => q.line).sort()))
    .digest('hex')
    .slice(0, 12);
  ctx.input.log(
    `environment ${ctx.target.ref}: ${missing.length} requirement(s) of the project's metadata (top-up ${key})`,
  );
  const aptTag = ctx.intermediateTag('topup-apt');
  const aptImage = `${ctx.target.repo}:${aptTag}`;
  const got = await fetchTopUp(ctx, base, missing, aptTag);
  try {
    return await installTopUp(ctx, got.aptUsed ? aptImage : base, key, got);
  } finally {
    if (got.aptUsed) await ctx.input.engine.removeImage(aptImage).catch(() => undefined);
  }
}

interface TopUpFetched {
  reqs: RequirementsContext;
  fetched: Fetched;
  downloads: Buffer | null;
  /** Debian's packages went into a box FROM `base`, committed as the top-up's apt image. */
  aptUsed: boolean;
}

/** The networked half: pip downloads in the bare sandbox image, apt (if needed) in a box from `base`. */
async function fetchTopUp(
  ctx: BuildContext,
  base: string,
  missing: PlannedRequirement[],
  aptTag: string,
): Promise<TopUpFetched> {
  const { engine, pip, log } = ctx.input;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  const opts = { network, labels: ctx.labels, log };
  const net = await BuildBox.start(engine, { ...opts, image: ctx.input.base.ref, redactor: pip.redactor });
  const apt: { box: BuildBox | null } = { box: null };
  try {
    await putIndexFiles(net, pip);
    const dirs = await putWheelDirs(net, ctx.spec.pip.userWheels, new Set(missing.map((q) => q.normalized)));
    // Called once, for what pip left unmet: fetched apart, installed offline on `base` (apt-offline.ts).
    const reqs = requirementsContext(
      ctx,
      net,
      dirs,
      missing,
      async (name, packages) => {
        const installed = await aptOffline(ctx, base, name, packages, false);
        apt.box = installed.box;
        return installed.step;
      },
      'onto',
    );
    const offered = await offerCachedWheels(ctx, net, missing);
    const fetched = await fetchRequirements(net, reqs);
    await dropIndexFiles(net);
    const downloads = await takeDownloads(net, fetched);
    await keepDownloadedWheels(ctx, net, offered, downloads);
    if (apt.box) {
      await apt.box.run(cleanStep());
      await apt.box.commit({ repo: ctx.target.repo, tag: aptTag, changes: [] });
    }
    return { reqs, fetched, downloads, aptUsed: !!apt.box };
  } finally {
    for (const box of [net, apt.box]) if (box) ctx.collect(box);
    await Promise.all([net.remove(), apt.box?.remove()]);
  }
}

/** The METADATA's requirements the plan did not already ask for; null (said) when there is none to read. */
function topUpRequirements(ctx: BuildContext, files: FileToWrite[]): PlannedRequirement[] | null {
  const { plan } = ctx.spec;
  if (!plan.project.installable) return null;
  const metadata = files.find((f) => /\.dist-info\/METADATA$/.test(f.path));
  if (!metadata) {
    ctx.sources.push(
      "top-up: the project's METADATA is not available; requirements named only in its build code are not installed",
    );
    return null;
  }
  const text = metadata.data.toString('utf8');
  const extras = providedExtras(text).filter((e) => isTestName(e));
  const read = metadataRequirements(requiresDist(text), { python: plan.python, extras, from: FROM });
  for (const why of read.refused) ctx.sources.push(`top-up: refused ${why}`);
  const planned = new Set(plan.requirements.map((q) => q.normalized));
  if (plan.project.name) planned.add(normalize(plan.project.name));
  return read.requirements.filter((q) => !planned.has(q.normalized));
}

function offlineBox(ctx: BuildContext, image: string): Promise<BuildBox> {
  return BuildBox.start(ctx.input.engine, {
    image,
    network: 'none',
    labels: ctx.labels,
    log: ctx.input.log,
    confined: true,
    redactor: ctx.input.pip.redactor,
  });
}

async function installTopUp(
  ctx: BuildContext,
  image: string,
  key: string,
  got: TopUpFetched,
): Promise<string> {
  const box = await offlineBox(ctx, image);
  try {
    if (got.downloads) await box.put('/opt/piper', Readable.from([got.downloads]));
    const outcome = await installRequirements(box, got.reqs, got.fetched);
    ctx.shortfalls.push(...outcome.shortfalls);
    ctx.sources.push(
      `top-up ${key}: ${got.reqs.wanted.map((q) => q.line).join(', ')} (named only in the project's build code)`,
    );
    await scanPytestPlugins(ctx, box);
    const clean = cleanStep();
    await box.run({ ...clean, script: `rm -rf ${DOWNLOADS}; ${clean.script}` });
    await checkInstallWrites(ctx, box, "the top-up's install");
    const tag = `${ctx.intermediateTag('topup')}-${key}`;
    await box.commit({ repo: ctx.target.repo, tag, changes: [downloadedCodeLabel('topup')] });
    return `${ctx.target.repo}:${tag}`;
  } finally {
    ctx.collect(box);
    await box.remove();
  }
}
