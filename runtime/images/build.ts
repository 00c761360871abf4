// Building the sandbox image, two paths with one result (docs/sandbox.md):
// offline — debootstrap a Debian root filesystem from the mirror apt already uses, then import it
// through the engine API as a tar stream; online — the Dockerfile, for machines that pull base
// images. Both carry the recipe-hash label and tag, so either satisfies the other's skip check.
// An existing image is reused only when it is the one piper recorded building (built-images.ts):
// the label alone is inherited by every image built FROM the sandbox image.
// The offline path keeps the packed root filesystem (rootfs-<recipe hash>.tar in the build
// directory): a second engine on the same host (Podman next to Docker, a remote engine) imports
// it in seconds instead of running debootstrap again; --force makes a fresh one.
import { spawn } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DockerEngine, ImageSummary } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { aptInstall } from '../host/apt.js';
import { acquireBuildLock } from '../host/build-lock.js';
import { builtImage, matchesRecord, readBuiltImages, recordBuiltImage } from './built-images.js';
import { packDirectory } from './pack-dir.js';
import { DEFAULT_SUITE, IMAGE_REPO, RECIPE_LABEL, loadRecipe, type Recipe, type Suite } from './recipe.js';

export type BuildPath = 'offline' | 'dockerfile';

export interface BuildResult {
  ref: string;
  imageId: string;
  recipeHash: string;
  skipped: boolean;
  seconds: number;
}

const BUILD_ROOT = process.env.PIPER_BUILD_DIR ?? '/var/cache/piper-agent';

/** The image for the current recipe: reused when one with its hash exists, built otherwise. */
export async function ensureImage(
  engine: DockerEngine,
  opts: {
    force?: boolean;
    path?: BuildPath;
    log: (line: string) => void;
    recipe?: Recipe;
    /** Default: recipe.json's suite (trixie). Ignored when `recipe` is given. */
    suite?: Suite;
  },
): Promise<BuildResult> {
  const recipe = opts.recipe ?? loadRecipe({ suite: opts.suite });
  const t0 = Date.now();
  const existing = opts.force ? null : await reuse(engine, recipe);
  if (existing) return existing;
  const lock = await acquireBuildLock(`${IMAGE_REPO}-${recipe.hash}`, {
    log: opts.log,
    what: 'sandbox image',
  });
  try {
    // Another process may have built it while this one waited (a forced build is built again).
    const made = lock.waited && !opts.force ? await reuse(engine, recipe) : null;
    return made ?? (await buildAndRecord(engine, recipe, opts, t0));
  } finally {
    lock.release();
  }
}

/** The recipe's image as piper recorded building it, tagged with the recipe's name; null if none. */
async function reuse(engine: DockerEngine, recipe: Recipe): Promise<BuildResult | null> {
  const existing = await findImage(engine, recipe.hash);
  if (!existing) return null;
  if (!existing.tags.includes(recipe.ref)) await engine.tagImage(existing.id, IMAGE_REPO, recipe.tag);
  return { ref: recipe.ref, imageId: existing.id, recipeHash: recipe.hash, skipped: true, seconds: 0 };
}

async function buildAndRecord(
  engine: DockerEngine,
  recipe: Recipe,
  opts: { force?: boolean; path?: BuildPath; log: (line: string) => void },
  t0: number,
): Promise<BuildResult> {
  if ((opts.path ?? 'offline') === 'dockerfile') await buildWithDockerfile(engine, recipe, opts.log);
  else await buildOffline(engine, recipe, opts.log, opts.force ?? false);
  const built = await engine.inspectImage(recipe.ref);
  if (!built)
    throw new RuntimeError('image_build_failed', `the build finished but ${recipe.ref} is not there`);
  const imageId = built.id;
  recordBuiltImage({
    recipeHash: recipe.hash,
    imageId,
    layers: built.layers,
    ref: recipe.ref,
    suite: recipe.suite,
    builtAt: new Date().toISOString(),
  });
  if (recipe.suite === DEFAULT_SUITE) await engine.tagImage(imageId, IMAGE_REPO, 'latest');
  return {
    ref: recipe.ref,
    imageId,
    recipeHash: recipe.hash,
    skipped: false,
    seconds: (Date.now() - t0) / 1000,
  };
}

/**
 * The image piper built for this recipe hash: one carrying the label whose id and layers are the
 * recorded ones. A labelled image that differs (a child built FROM it: more layers, or the same
 * layers under another configuration) is never it; with no record there is none, and the caller
 * rebuilds.
 */
export async function findImage(engine: DockerEngine, recipeHash: string): Promise<ImageSummary | null> {
  const record = builtImage(recipeHash);
  if (!record) return null;
  const images = await engine.listImages([`${RECIPE_LABEL}=${recipeHash}`]);
  for (const image of images) {
    if (image.id !== record.imageId) continue;
    const detail = await engine.inspectImage(image.id);
    if (detail && matchesRecord(detail, record)) return image;
  }
  return null;
}

export interface SandboxImage extends ImageSummary {
  /** Whether piper recorded building this image; a labelled image that piper did not build is ignored. */
  builtByPiper: boolean;
}

export async function listSandboxImages(engine: DockerEngine): Promise<SandboxImage[]> {
  const records = readBuiltImages();
  const images = await engine.listImages([RECIPE_LABEL]);
  return images.map((image) => {
    const record = records[image.labels[RECIPE_LABEL] ?? ''];
    return { ...image, builtByPiper: record?.imageId === image.id };
  });
}

async function buildOffline(
  engine: DockerEngine,
  recipe: Recipe,
  log: (line: string) => void,
  force: boolean,
): Promise<void> {
  mkdirp(BUILD_ROOT);
  const rootfsTar = rootfsCachePath(recipe);
  if (force || !existsSync(rootfsTar)) await makeRootfsTar(recipe, rootfsTar, log);
  else log(`reusing the root filesystem debootstrap made for this recipe: ${rootfsTar}`);
  log(`importing it into the engine as ${recipe.ref}`);
  await engine.importImage(
    createReadStream(rootfsTar),
    {
      repo: IMAGE_REPO,
      tag: recipe.tag,
      changes: [
        `LABEL ${RECIPE_LABEL}=${recipe.hash}`,
        `ENV ${recipe.env.map(quoteEnv).join(' ')}`,
        'USER 1000:1000',
        `WORKDIR ${recipe.workdir}`,
        'CMD ["python3"]',
      ],
    },
    (event) => event.status && log(`  ${event.status}`),
  );
}

/** Where the offline build keeps the packed root filesystem of a recipe (it may not exist yet). */
export function rootfsCachePath(recipe: Recipe): string {
  return join(BUILD_ROOT, `rootfs-${recipe.hash}.tar`);
}

/** debootstrap the recipe's root filesystem and pack it into `dest` (written whole, then renamed). */
async function makeRootfsTar(recipe: Recipe, dest: string, log: (line: string) => void): Promise<void> {
  if (!existsSync('/usr/sbin/debootstrap')) await aptInstall(['debootstrap'], log);
  const work = mkdtempSync(join(BUILD_ROOT, `rootfs-${recipe.tag}-`));
  const partial = `${dest}.${process.pid}.partial`;
  try {
    log(`building the Debian ${recipe.suite} root filesystem in ${work} (debootstrap; about a minute)`);
    await runScript(join(recipe.dir, 'build-rootfs.sh'), [work, recipe.suite], log);
    let lastMb = 0;
    const tar = packDirectory(work, (p) => {
      const mb = Math.floor(p.bytes / (1 << 20));
      if (mb >= lastMb + 50) {
        lastMb = mb;
        log(`  packed ${p.entries} entries, ${mb} MiB`);
      }
    });
    await pipeline(tar, createWriteStream(partial, { mode: 0o600 }));
    renameSync(partial, dest);
  } finally {
    rmSync(partial, { force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

async function buildWithDockerfile(
  engine: DockerEngine,
  recipe: Recipe,
  log: (line: string) => void,
): Promise<void> {
  log(`building ${recipe.ref} from ${join(recipe.dir, 'Dockerfile')} (debian:${recipe.suite}-slim)`);
  await engine.buildImage(
    packDirectory(recipe.dir),
    { t: recipe.ref, labels: { [RECIPE_LABEL]: recipe.hash }, buildargs: { SUITE: recipe.suite } },
    (event) => {
      const line = (event.stream ?? event.status ?? '').trimEnd();
      if (line) log(`  ${line}`);
    },
  );
}

function quoteEnv(pair: string): string {
  const eq = pair.indexOf('=');
  return `${pair.slice(0, eq)}=${JSON.stringify(pair.slice(eq + 1))}`;
}

function mkdirp(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new RuntimeError(
      'image_build_failed',
      `cannot create ${dir}: ${(error as Error).message}`,
      'set PIPER_BUILD_DIR',
    );
  }
  return dir;
}

function runScript(script: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(script, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail: string[] = [];
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        tail = [...tail.slice(-30), line];
        // debootstrap prints a line per package; show its phases and problems, not every package.
        if (!/^I: (Retrieving|Validating|Extracting|Unpacking|Configuring) [a-z0-9]/.test(line))
          log(`  ${line}`);
      }
    };
    child.stdout.on('data', onLine);
    child.stderr.on('data', onLine);
    child.on('error', (error) =>
      reject(new RuntimeError('image_build_failed', `${script}: ${error.message}`)),
    );
    child.on('close', (code) => {
      if (code === 0) return resolve();
      reject(new RuntimeError('image_build_failed', `${script} exited with ${code}:\n${tail.join('\n')}`));
    });
  });
}
