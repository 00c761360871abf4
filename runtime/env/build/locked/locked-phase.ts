// A lockfile's closure (plan.locked), installed as locked: downloaded in the networked box by hash
// (locked-steps.ts), installed in the offline box before the rest of the requirements, which pip
// then resolves around it. A file that does not match its locked hash ends the build, naming the
// package: an unlocked install in its place would be the very thing the lock forbids. Any other
// reason the closure cannot be downloaded (no index in this build, no wheel for this Python) is
// said in one line, and the build goes on as without the closure: the plan's requirements were
// narrowed to the locked versions.
import { Readable } from 'node:stream';
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { readPipFailure } from '../pip-failure.js';
import { lastLines, normalize } from '../step-output.js';
import { pipSourceEnv } from '../../plan/pip-settings.js';
import type { LockedClosure } from '../../plan/types.js';
import { keepLockedWheels, offerLockedWheels } from './locked-cache.js';
import {
  hashMismatches,
  LOCKED,
  lockedDownloadStep,
  lockedInstallStep,
  reportHashes,
} from './locked-steps.js';

const MAX_LOCKED = 4 * 1024 ** 3;

export interface LockedFetch {
  locked: LockedClosure;
  /** The tar of LOCKED: the downloaded files. */
  tar: Buffer;
}

function refuseMismatch(ctx: BuildContext, locked: LockedClosure, output: string): void {
  const bad = hashMismatches(output);
  if (!bad.length) return;
  const each = bad.map((b) => `${b.requirement} (locked sha256 ${b.expected || '?'}, file ${b.got || '?'})`);
  ctx.fail(
    `refused: the file of ${each.join('; ')} does not match the hash locked in ${locked.from}; nothing was installed from it`,
    `if ${locked.from} is right, the index serves altered files: ask its owner; if the package was re-released on purpose, lock it again (new hashes)`,
  );
}

/** The networked half: the closure downloaded by hash, or null (said in the build's sources) when not installed as locked. */
export async function fetchLocked(
  ctx: BuildContext,
  net: BuildBox,
  userWheelDirs: string[],
): Promise<LockedFetch | null> {
  const { locked } = ctx.spec.plan;
  if (!locked) return null;
  const instead = 'pip resolves the requirements, narrowed to the locked versions';
  if (ctx.spec.sources.used !== 'index') {
    ctx.sources.push(`lockfile ${locked.from}: not installed as locked (no index in this build); ${instead}`);
    return null;
  }
  const { pip } = ctx.input;
  const offered = await offerLockedWheels(ctx, net, locked);
  const r = await net.run(lockedDownloadStep(locked, pipSourceEnv(pip, userWheelDirs), pip.redactor));
  refuseMismatch(ctx, locked, r.output_tail);
  if (r.exit_code === 0) {
    const tar = await net.read(LOCKED, MAX_LOCKED);
    const kept = await keepLockedWheels(ctx, tar, offered);
    const cache = ctx.wheels ? ` (wheel cache: ${offered.size} offered, ${kept} new kept)` : '';
    ctx.sources.push(
      `pip (locked): ${locked.packages.length} package(s) of ${locked.from} downloaded by hash${cache}`,
    );
    return { locked, tar };
  }
  const failure = readPipFailure(r.output_tail);
  if (failure.kind === 'unreachable') ctx.indexGone(`the index not reachable (${failure.line})`);
  const why =
    failure.kind === 'not_found' ? `no wheel of ${failure.requirement} for this Python` : failure.line;
  ctx.sources.push(
    `lockfile ${locked.from}: not installed as locked (${why || lastLines(r.output_tail, 1)}); ${instead}`,
  );
  return null;
}

/** The offline half: the downloaded closure installed by hash into the venv, each package recorded with its sha256. */
export async function installLocked(ctx: BuildContext, box: BuildBox, got: LockedFetch): Promise<void> {
  const { locked } = got;
  await box.put('/opt/piper', Readable.from([got.tar]));
  const r = await box.run(lockedInstallStep(locked));
  refuseMismatch(ctx, locked, r.output_tail);
  ctx.check(r, 'install (locked)');
  const lockedOf = new Map(locked.packages.map((p) => [p.name, p]));
  const installed = reportHashes(r.stdout);
  for (const p of installed) {
    const key = normalize(p.name);
    const only = lockedOf.get(key)?.hashes;
    const sha256 = p.sha256 ?? (only?.length === 1 ? only[0]! : null);
    ctx.resolved.set(key, { name: p.name, version: p.version, source: 'pip', ...(sha256 ? { sha256 } : {}) });
  }
  ctx.sources.push(`install (locked): ${installed.length} distribution(s) of ${locked.from}, hashes checked`);
}

/** The names the closure provides: the rest of the plan's requirements are resolved around them. */
export function lockedNames(got: LockedFetch | null): Set<string> {
  return new Set(got?.locked.packages.map((p) => p.name) ?? []);
}
