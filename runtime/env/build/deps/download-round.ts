// pip over the requirements as one resolution, download only (download-steps.ts), in the networked
// box. When it fails on one requirement with no wheel that meets it, that one's sdist is fetched and
// built offline (sdist-round.ts) and the download runs again with the built wheel beside the
// sources (bounded: MAX_SDISTS); failing that, it is retried at the nearest version pip listed
// (best effort) or handed to Debian, and the rest downloaded again. Where the packages come from
// decides what pip may ask: with sources = index, the indexes (the chooser found them answering:
// choose/index-probe.ts; should pip find them unreachable now, no index build is made); with
// sources = debian, or a fallback from the index, only find-links (`PIP_NO_INDEX`), and no sdist.
import type { BuildBox } from '../build-box.js';
import { BUILT, downloadedFiles, pipDownloadStep } from './download-steps.js';
import { nearestVersion } from './nearest-version.js';
import { readPipFailure, type PipFailure } from '../pip-failure.js';
import { pipSourceEnv, type PipSettings } from '../../plan/pip-settings.js';
import { pipRequirementLine } from '../../plan/deps/pip-line.js';
import type { EnvSources, PlannedRequirement } from '../../plan/types.js';
import type { SdistOutcome } from './sdist-round.js';
import { lastLines, normalize } from '../step-output.js';

const MAX_SDISTS = 8;

export interface DownloadContext {
  pip: PipSettings;
  userWheelDirs: string[];
  strict: boolean;
  sources: string[];
  /** An sdist of pip's failing requirement fetched and built offline (sdist-round.ts). */
  sdist: (requirement: string, env: string[], nearest: boolean) => Promise<SdistOutcome>;
  /** Where the packages come from in this build (spec.sources.used). */
  use: EnvSources;
  /** A fallback build: what the index probe said (the reason the index is not asked). */
  indexSaid: string | null;
  /** pip found the indexes unreachable in an index build: ends it (BuildContext.indexGone). */
  indexGone: (said: string) => never;
}

export interface PipOutcome {
  said: string;
  /** Per requirement, when pip said something about it in particular. */
  saidOf: Map<string, string>;
  /** The lines pip downloaded everything for (normalized name → line); empty when it never did. */
  lines: Map<string, string>;
  /** Downloaded at another version than asked (best effort). */
  relaxed: PlannedRequirement[];
}

export async function downloadBestEffort(
  box: BuildBox,
  ctx: DownloadContext,
  toPip: PlannedRequirement[],
): Promise<PipOutcome> {
  const out: PipOutcome = { said: 'nothing to download', saidOf: new Map(), lines: new Map(), relaxed: [] };
  const lines = new Map(toPip.map((q) => [q.normalized, pipRequirementLine(q)]));
  const anyFindLinks = ctx.userWheelDirs.length > 0 || ctx.pip.findLinkUrls.length > 0;
  const index = ctx.use === 'index';
  const where = !index
    ? `your find-links (no index: ${ctx.indexSaid ? 'it did not answer' : 'sources = debian'})`
    : ctx.pip.defaultIndex
      ? "pip's default index"
      : 'your pip sources';
  if (!index && !anyFindLinks) {
    out.said = ctx.indexSaid ?? "not asked: sources = debian (Debian's packages, no index)";
    return out;
  }
  // No index at all under debian: pip reads PIP_NO_INDEX itself, and no sdist is looked for.
  const sourceEnv = (dirs: string[]) => [
    ...pipSourceEnv(ctx.pip, dirs),
    ...(index ? [] : ['PIP_NO_INDEX=1']),
  ];
  const env = sourceEnv(ctx.userWheelDirs);
  // The wheels built from sdists are one more find-links directory of the next round.
  const withBuilt = sourceEnv([...ctx.userWheelDirs, BUILT]);
  const tried = new Set<string>();
  for (let attempt = 0; lines.size && attempt <= toPip.length + 1 + MAX_SDISTS; attempt++) {
    const r = await box.run(pipDownloadStep([...lines.values()], withBuilt, ctx.pip.redactor));
    if (r.exit_code === 0) {
      out.lines = lines;
      out.said = `downloaded ${downloadedFiles(r.stdout).length} file(s) from ${where}`;
      return out;
    }
    const failure = readPipFailure(r.output_tail);
    if (failure.kind === 'unreachable') {
      const said = `${where} not reachable (${failure.line}); not tried further`;
      if (index) ctx.indexGone(said);
      out.said = said;
      return out;
    }
    if (failure.kind === 'other') {
      out.said = `failed (${lastLines(r.output_tail, 1).replace(/^ERROR: /, '')})`;
      return out;
    }
    const key = normalize(failure.name);
    if (index && !tried.has(key) && tried.size < MAX_SDISTS) {
      tried.add(key);
      // Wheels at other versions: only an sdist that meets the specifier beats the nearest wheel.
      const sdist = await ctx.sdist(failure.requirement, env, failure.versions.length === 0);
      out.saidOf.set(key, sdist.said);
      ctx.sources.push(`sdist: ${failure.name}: ${sdist.said}`);
      if (sdist.ok) continue;
    }
    retryNearestOrDrop(failure, toPip, lines, ctx.strict, out);
  }
  out.said = lines.size ? 'gave up after one retry per requirement' : 'nothing it could download';
  return out;
}

/**
 * pip found no version of one requirement: ours and a version near the asked one, retry at that
 * version (relaxed); otherwise drop it from pip's lines.
 */
function retryNearestOrDrop(
  failure: Extract<PipFailure, { kind: 'not_found' }>,
  toPip: PlannedRequirement[],
  lines: Map<string, string>,
  strict: boolean,
  out: PipOutcome,
): void {
  const key = normalize(failure.name);
  const q = toPip.find((x) => x.normalized === key);
  const nearest = q && !strict && !q.url ? nearestVersion(q.specifier, failure.versions) : null;
  const said = out.saidOf.get(key);
  if (q && nearest && lines.get(key) !== `${q.name}==${nearest}`) {
    lines.set(key, `${q.name}${q.extras.length ? `[${q.extras.join(',')}]` : ''}==${nearest}`);
    out.relaxed.push(q);
    out.saidOf.set(key, `no version meets ${q.specifier}; has ${failure.versions.slice(-5).join(', ')}`);
  } else {
    // Not ours (a dependency of one of ours) or nothing near: leave it to Debian.
    lines.delete(
      q ? key : ([...lines.keys()].find((k) => lines.get(k)?.startsWith(failure.requirement)) ?? key),
    );
    const versions = failure.versions.length
      ? `no version meets it; has ${failure.versions.slice(-5).join(', ')}`
      : 'no such distribution';
    out.saidOf.set(key, said ? `${versions}; ${said}` : versions);
    if (!q) out.said = `a dependency, ${failure.requirement}, has no matching version`;
  }
}
