// A source distribution with C, C++ or Cython sources is built as pip in a user's CI builds it: with
// a compiler. The compiler, Python's headers and the -dev package of each library its sources
// include come from Debian (apt-offline.ts: downloaded in a box of the sandbox image, installed with
// no network) onto the sandbox image, in an image only this build's sdist boxes start from, made
// once per set of packages and removed when the build ends: the environment never holds a compiler.
import { gunzipSync } from 'node:zlib';
import { buildToolPackages, isPackageSource } from '../../plan/native.js';
import type { BuildContext } from '../build-context.js';
import { readTar } from '../tar-files.js';
import { missingLines } from '../step-output.js';
import { cleanStep } from '../steps.js';
import { aptOffline } from './apt-offline.js';

/** Bytes of an sdist read for its sources: a gzip bomb stops here, not in memory. */
const MAX_UNPACKED = 256 << 20;

/**
 * The Debian packages that build `file`'s compiled sources, or none when it has none (or is not a
 * .tar.gz piper can read: then it is built as before, and a failure says why).
 */
export async function sdistBuildTools(file: string, data: Buffer): Promise<string[]> {
  if (!/\.tar\.gz$/.test(file)) return [];
  let entries;
  try {
    entries = await readTar(gunzipSync(data, { maxOutputLength: MAX_UNPACKED }));
  } catch {
    return [];
  }
  // Paths inside the sdist's top directory (`name-1.0/pkg/_x.c` → `pkg/_x.c`).
  const sources = entries
    .filter((e) => e.type === 'file')
    .map((e) => ({ path: e.name.replace(/^[^/]*\//, ''), data: e.data }))
    .filter((e) => isPackageSource(e.path));
  if (!sources.some((e) => /\.(c|cc|cpp|cxx|pyx)$/.test(e.path))) return [];
  return buildToolPackages(sources.map((e) => ({ path: e.path, text: () => e.data.toString('utf8') })));
}

const made = new WeakMap<BuildContext, Map<string, Promise<string | null>>>();

/**
 * The image of the sandbox image plus `packages`, made once per build and set of packages; null
 * when apt could not install them (the sdist is then built without, and its failure said).
 */
export function sdistCompilerImage(ctx: BuildContext, packages: string[]): Promise<string | null> {
  const byBuild = made.get(ctx) ?? new Map<string, Promise<string | null>>();
  made.set(ctx, byBuild);
  const key = packages.join(' ');
  let image = byBuild.get(key);
  if (!image) {
    image = makeCompilerImage(ctx, packages, byBuild.size);
    byBuild.set(key, image);
  }
  return image;
}

async function makeCompilerImage(ctx: BuildContext, packages: string[], n: number): Promise<string | null> {
  const { box, step } = await aptOffline(ctx, ctx.input.base.ref, 'sdist build tools', packages, false);
  if (!box) return null;
  try {
    if (step.exit_code !== 0) return null;
    const missing = missingLines(step.stdout);
    await box.run(cleanStep());
    const tag = `${ctx.intermediateTag('sdist-tools')}-${n}`;
    await box.commit({ repo: ctx.target.repo, tag, changes: [] });
    const ref = `${ctx.target.repo}:${tag}`;
    ctx.scratchImages.push(ref);
    ctx.sources.push(
      `sdist build tools: ${packages.filter((p) => !missing.includes(p)).join(' ')} (for source distributions with compiled parts; in their build boxes only)`,
    );
    return ref;
  } finally {
    ctx.collect(box);
    await box.remove();
  }
}
