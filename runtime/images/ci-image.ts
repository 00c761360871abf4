// The image that runs piper-agent itself in CI (docker/, DESIGN.md section 1). Offline by default:
// FROM the sandbox image already on the engine (built first when missing), with this machine's
// node and git and the app's production packages, so no registry is ever needed. The image is
// labelled with a hash of everything in its build context and reused while that hash exists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DockerEngine, ImageSummary } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { ensureImage } from './build.js';
import {
  contextBytes,
  contextHash,
  offlineContext,
  onlineContext,
  packContext,
  type CiBuildPath,
  type CiContext,
} from './ci-context.js';
import { loadRecipe } from './recipe.js';

export type { CiBuildPath } from './ci-context.js';

export const CI_IMAGE_REPO = 'piper-agent-ci';
export const CI_LABEL = 'piper.ci-image';
export const CI_HASH_LABEL = 'piper.ci-image.hash';
export const CI_VERSION_LABEL = 'piper.version';
export const CI_NODE_LABEL = 'piper.node';
/** The sandbox image an offline CI image was built from (its id): a rebuilt sandbox means a new CI image. */
export const CI_BASE_LABEL = 'piper.ci-image.base';

export interface CiImagePlan {
  path: CiBuildPath;
  context: CiContext;
  hash: string;
  /** piper-agent-ci:<hash12>; the build also tags :latest and :<version>. */
  ref: string;
  version: string;
  labels: Record<string, string>;
}

export interface CiImageResult {
  ref: string;
  imageId: string;
  hash: string;
  version: string;
  path: CiBuildPath;
  skipped: boolean;
  /** Wall time of the whole call: hashing, and the build when there was one. */
  seconds: number;
  lacks: string[];
}

/** What the current app files would build, and under which hash, without building anything. */
export async function planCiImage(
  engine: DockerEngine,
  opts: { path: CiBuildPath; root?: string; sandboxRef?: string },
): Promise<CiImagePlan> {
  const root = opts.root ?? packageRoot();
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const labels: Record<string, string> = { [CI_LABEL]: '1', [CI_VERSION_LABEL]: version };
  let context: CiContext;
  if (opts.path === 'offline') {
    const sandboxRef = opts.sandboxRef ?? loadRecipe().ref;
    const baseId = await engine.imageId(sandboxRef);
    if (!baseId) {
      throw new RuntimeError('image_missing', `the sandbox image ${sandboxRef} is not built`, 'run `piper-agent image build`');
    }
    context = offlineContext(root, sandboxRef);
    labels[CI_BASE_LABEL] = baseId;
    labels[CI_NODE_LABEL] = process.version;
  } else {
    context = onlineContext(root);
  }
  // The base image's id is part of the hash: the same app on a rebuilt sandbox is a new image.
  const hash = await contextHash(context, [labels[CI_BASE_LABEL] ?? '', version]);
  labels[CI_HASH_LABEL] = hash;
  return { path: opts.path, context, hash, ref: `${CI_IMAGE_REPO}:${hash.slice(0, 12)}`, version, labels };
}

/** The CI image of the current app files: reused when one with their hash exists, built otherwise. */
export async function ensureCiImage(
  engine: DockerEngine,
  opts: { force?: boolean; path?: CiBuildPath; root?: string; log: (line: string) => void },
): Promise<CiImageResult> {
  const t0 = Date.now();
  const path = opts.path ?? 'offline';
  // Offline, the sandbox image is the base: build it first when this engine has none.
  const sandboxRef = path === 'offline' ? (await ensureImage(engine, { log: opts.log })).ref : undefined;
  const plan = await planCiImage(engine, { path, root: opts.root, sandboxRef });
  for (const missing of plan.context.lacks) opts.log(`warning: the image will lack ${missing}`);
  const done = (imageId: string, skipped: boolean): CiImageResult => ({
    ref: plan.ref,
    imageId,
    hash: plan.hash,
    version: plan.version,
    path,
    skipped,
    seconds: (Date.now() - t0) / 1000,
    lacks: plan.context.lacks,
  });

  if (!opts.force) {
    const existing = await findCiImage(engine, plan.hash);
    if (existing) {
      await tagCiImage(engine, existing.id, plan);
      return done(existing.id, true);
    }
  }
  const mib = (contextBytes(plan.context) / (1 << 20)).toFixed(0);
  opts.log(`building ${plan.ref} (${path}; context: ${plan.context.entries.length} files, ${mib} MiB)`);
  await engine.buildImage(packContext(plan.context), { t: plan.ref, labels: plan.labels }, (event) => {
    const line = (event.stream ?? event.status ?? '').trimEnd();
    if (line) opts.log(`  ${line}`);
  });
  const imageId = await engine.imageId(plan.ref);
  if (!imageId) throw new RuntimeError('image_build_failed', `the build finished but ${plan.ref} is not there`);
  await tagCiImage(engine, imageId, plan);
  return done(imageId, false);
}

export async function findCiImage(engine: DockerEngine, hash: string): Promise<ImageSummary | null> {
  const images = await engine.listImages([`${CI_HASH_LABEL}=${hash}`]);
  return images[0] ?? null;
}

export async function listCiImages(engine: DockerEngine): Promise<ImageSummary[]> {
  return engine.listImages([CI_LABEL]);
}

/** :<hash12> names the content; :latest and :<version> follow the newest build or reuse. */
async function tagCiImage(engine: DockerEngine, imageId: string, plan: CiImagePlan): Promise<void> {
  for (const tag of [plan.hash.slice(0, 12), 'latest', plan.version]) {
    await engine.tagImage(imageId, CI_IMAGE_REPO, tag);
  }
}
