// A requirement the indexes serve only as a source distribution: its file fetched in the networked
// box without being built (download-steps.ts), then built into a wheel in a box with no network and
// no secret, stopped before anything of it is read; the wheel's METADATA is read here as data and
// every requirement in it checked (no direct URL, no VCS reference). Only then does the wheel go
// back to the networked box, as a find-links file the next download round resolves its
// requirements from — pip reads a wheel's metadata there, it never runs it.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { maxSatisfying, valid } from '@renovatebot/pep440';
import { inert } from '../../../text/inert.js';
import { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import {
  BUILT,
  SDISTS,
  listedSdists,
  sdistBuildStep,
  sdistFetchStep,
  sdistListStep,
} from './download-steps.js';
import { nearestVersion } from './nearest-version.js';
import { buildDepsInstallStep, downloadBuildDeps, sdistBuildRequires } from './sdist-build-deps.js';
import { isEnvPlanError } from '../../plan/errors.js';
import { parseRequirement, renderSpecifiers } from '../../plan/read/pep508.js';
import { boundedVersion } from '../../plan/read/version-bounds.js';
import { lastLines, normalize } from '../step-output.js';
import { packAbsolute, readTar } from '../tar-files.js';
import { requiresDist, wheelMetadata } from './wheel-metadata.js';
import { sdistBuildTools, sdistCompilerImage } from '../offline/sdist-compiler.js';

export type SdistOutcome = { ok: true; said: string } | { ok: false; said: string };

const MAX_FILE = 512 << 20;

/**
 * pip's failing requirement text (`name>=1`): an sdist of it fetched, built offline, its wheel in
 * BUILT. `nearest`: an sdist at the nearest version will do (no wheel of it at any version).
 */
export async function sdistWheel(
  ctx: BuildContext,
  net: BuildBox,
  env: string[],
  requirement: string,
  nearest: boolean,
): Promise<SdistOutcome> {
  const wanted = parseWanted(requirement);
  if (!wanted) return { ok: false, said: `${requirement} is not a requirement piper reads` };
  const listed = listedSdists((await net.run(sdistListStep(wanted.name, env))).stdout);
  const version = chooseVersion([...listed.keys()], wanted.specifier, ctx.spec.strict || !nearest);
  if (!version)
    return {
      ok: false,
      said: listed.size
        ? `no wheel; no sdist meets it either (sdists: ${[...listed.keys()].slice(-5).join(', ')})`
        : 'no wheel and no sdist of it',
    };
  const file = listed.get(version)!;
  const fetched = await net.run(sdistFetchStep(wanted.name, file, env));
  if (fetched.exit_code !== 0) return { ok: false, said: `its sdist ${file} could not be fetched` };
  const sdist = (await readTar(await net.read(`${SDISTS}/${file}`, MAX_FILE))).find((e) => e.type === 'file');
  if (!sdist) return { ok: false, said: `its sdist ${file} was not where it was fetched to` };
  // The same sdist's bytes built on the same image before: its wheel, checked again, not a build.
  const sdistHex = createHash('sha256').update(sdist.data).digest('hex');
  const cached = ctx.wheels?.lookupBuilt(sdistHex, ctx.input.base.id) ?? null;
  if (cached && !checkWheel(cached.data, cached.file, file)) {
    await net.put('/', packAbsolute([{ path: `${BUILT}/${cached.file}`, data: cached.data, mode: 0o644 }]));
    return {
      ok: true,
      said: `${file}: no wheel; its sdist built offline before (${cached.file}, this machine's wheel cache)`,
    };
  }
  const requires = await sdistBuildRequires(file, sdist.data);
  const deps = requires.length ? await downloadBuildDeps(net, requires, env, ctx.input.pip.redactor) : null;
  const built = await buildOffline(ctx, file, sdist.data, deps ? { requires, tar: deps } : null);
  if (!built.ok) return built;
  keepBuilt(ctx, sdistHex, built.wheel, built.data);
  await net.put('/', packAbsolute([{ path: `${BUILT}/${built.wheel}`, data: built.data, mode: 0o644 }]));
  return { ok: true, said: `${file}: no wheel; its sdist built offline (${built.wheel})` };
}

function keepBuilt(ctx: BuildContext, sdistHex: string, wheel: string, data: Buffer): void {
  try {
    ctx.wheels?.storeBuilt(sdistHex, ctx.input.base.id, wheel, data);
  } catch {
    // A cache that cannot be written costs the next build this build, nothing more.
  }
}

function parseWanted(text: string): { name: string; specifier: string } | null {
  try {
    const q = parseRequirement(text);
    return q.url === undefined ? { name: q.name, specifier: renderSpecifiers(q.specifiers) } : null;
  } catch (error) {
    if (isEnvPlanError(error)) return null;
    throw error;
  }
}

/** The highest version that meets the specifier; best effort, the nearest one otherwise. */
function chooseVersion(versions: string[], specifier: string, exact: boolean): string | null {
  // An index's versions: one too long to compare is not offered.
  const usable = versions.filter((v) => boundedVersion(v) && valid(v));
  if (!specifier) return maxSatisfying(usable, '>=0') ?? nearestVersion('', usable);
  return maxSatisfying(usable, specifier) ?? (exact ? null : nearestVersion(specifier, usable));
}

type Built = { ok: true; wheel: string; data: Buffer } | { ok: false; said: string };

/** The sdist built into a wheel in a box with no network and no secret; its wheel checked as data. */
async function buildOffline(
  ctx: BuildContext,
  file: string,
  data: Buffer,
  deps: { requires: string[]; tar: Buffer } | null,
): Promise<Built> {
  const tools = await sdistBuildTools(file, data);
  const compiler = tools.length ? await sdistCompilerImage(ctx, tools) : null;
  const box = await ctx.offlineBox(compiler ?? ctx.input.base.ref);
  try {
    await box.put('/', packAbsolute([{ path: `${SDISTS}/${file}`, data, mode: 0o644 }]));
    if (deps) {
      await box.put('/opt/piper', Readable.from([deps.tar]));
      await box.run(buildDepsInstallStep(deps.requires));
    }
    const r = await box.run(sdistBuildStep(file));
    // Nothing the build started may change its wheel after it is read.
    await box.stop();
    if (r.exit_code !== 0)
      return {
        ok: false,
        said: `its sdist ${file} did not build offline: ${inert(lastLines(r.output_tail, 1))}`,
      };
    const wheels = (await readTar(await box.read(BUILT, MAX_FILE))).filter(
      (e) => e.type === 'file' && /^built\/[A-Za-z0-9][\w.+!-]*\.whl$/.test(e.name),
    );
    if (wheels.length !== 1) return { ok: false, said: `its sdist ${file} built ${wheels.length} wheels` };
    const wheel = wheels[0]!;
    const refused = checkWheel(wheel.data, wheel.name.slice('built/'.length), file);
    if (refused) return { ok: false, said: `the wheel built from ${file} ${refused}` };
    return { ok: true, wheel: wheel.name.slice('built/'.length), data: wheel.data };
  } finally {
    ctx.collect(box);
    await box.remove();
  }
}

/**
 * Why the built wheel is not offered to pip, or null: its METADATA unreadable, a name (the file's
 * or the METADATA's) other than the sdist's — pip would take it for another distribution —, a URL.
 */
function checkWheel(zip: Buffer, wheelFile: string, sdistFile: string): string | null {
  const metadata = wheelMetadata(zip);
  if (!metadata) return 'has no readable METADATA';
  const name = /^Name:\s*(\S+)\s*$/m.exec(metadata.split(/\r?\n\r?\n/)[0] ?? '')?.[1];
  const wanted = normalize(sdistFile.replace(/-[^-]+\.(?:tar\.gz|zip)$/, ''));
  if (!name || normalize(name) !== wanted || normalize(wheelFile.split('-')[0] ?? '') !== wanted)
    return `is named ${wheelFile} (${inert(name ?? 'no Name').slice(0, 80)}), not ${wanted}`;
  for (const line of requiresDist(metadata)) {
    try {
      if (parseRequirement(line).url !== undefined)
        return `requires ${inert(line.slice(0, 80))} (a direct URL)`;
    } catch (error) {
      if (!isEnvPlanError(error)) throw error;
      return `requires ${inert(line.slice(0, 80))}, which is not PEP 508`;
    }
  }
  return null;
}
