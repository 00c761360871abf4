// The requirements' context a networked dependency box works in (Debian's packages, its sdists, what the
// build recorded so far), and its downloads taken out as one tar: shared by the dependencies and
// top-up phases, which do not import each other.
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import type { PlannedRequirement } from '../../plan/types.js';
import { BUILT, DOWNLOADS } from './download-steps.js';
import type { Fetched, RequirementsContext } from './requirements-step.js';
import { sdistWheel } from './sdist-round.js';
import { keepWheels, offerWheels, type Offered } from '../network/wheel-cache.js';
import { readTar } from '../tar-files.js';

const MAX_DOWNLOADS = 4 * 1024 ** 3;

/** The networked box's downloads as one tar (of DOWNLOADS), or null when pip downloaded nothing. */
export async function takeDownloads(net: BuildBox, fetched: Fetched): Promise<Buffer | null> {
  if (!fetched.pip.lines.size) return null;
  return net.read(DOWNLOADS, MAX_DOWNLOADS);
}

/** The cached wheels the download of `wanted` may take, put into the networked box `net` before it runs. */
export function offerCachedWheels(
  ctx: BuildContext,
  net: BuildBox,
  wanted: PlannedRequirement[],
): Promise<Offered | null> {
  return offerWheels(
    net,
    ctx.wheels,
    ctx.input.pip,
    wanted.map((q) => q.normalized),
  );
}

/**
 * The wheels pip downloaded in `net` kept in the host's cache: not those built here from an sdist,
 * nor the user's wheel directories' files.
 */
export async function keepDownloadedWheels(
  ctx: BuildContext,
  net: BuildBox,
  offered: Offered | null,
  downloads: Buffer | null,
): Promise<void> {
  if (!ctx.wheels || !offered || !downloads) return;
  const notDownloaded = new Set(ctx.spec.pip.userWheels.flatMap((d) => d.wheels.map((w) => w.file)));
  const built = await net.read(BUILT).catch(() => null);
  if (built)
    for (const f of await readTar(built).catch(() => [])) notDownloaded.add(f.name.split('/').at(-1) ?? '');
  const kept = await keepWheels(ctx.wheels, offered, downloads, notDownloaded);
  const reused = offered.files.size;
  if (reused || kept)
    ctx.sources.push(`wheel cache: ${reused} wheel(s) offered from this machine's cache, ${kept} new kept`);
}

/** The requirements' context for the networked box `net` (its sdists), and where Debian's packages go (`apt`). */
export function requirementsContext(
  ctx: BuildContext,
  net: BuildBox,
  userWheelDirs: string[],
  wanted: PlannedRequirement[],
  apt: RequirementsContext['apt'],
  venv: RequirementsContext['venv'],
): RequirementsContext {
  return {
    wanted,
    plan: ctx.spec.plan,
    pip: ctx.input.pip,
    userWheelDirs,
    trustUrls: ctx.spec.trustUrls,
    strict: ctx.spec.strict,
    resolved: ctx.resolved,
    sources: ctx.sources,
    fail: (m, f) => ctx.fail(m, f),
    check: (s, w) => ctx.check(s, w),
    apt,
    venv,
    sdist: (requirement, env, nearest) => sdistWheel(ctx, net, env, requirement, nearest),
    use: ctx.spec.sources.used,
    indexSaid: ctx.spec.sources.fallback ? (ctx.input.probe?.said ?? 'the index did not answer') : null,
    indexGone: (said) => ctx.indexGone(said),
  };
}
