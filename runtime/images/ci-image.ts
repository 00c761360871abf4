// The image that runs piper-agent itself in CI (docker/, docs/architecture.md). Offline by default,
// in two images so no registry is ever needed and a new app build stays cheap:
//   piper-agent-ci-base:<hash12> — the sandbox image's root filesystem (the sandbox image is built
//                                  first when missing), this machine's node and git, node_modules;
//   piper-agent-ci:<hash12>      — the compiled app on top (also tagged :<version> and :latest).
// Each is labelled with the hash of everything that went into it and reused while that hash exists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DockerEngine, ImageSummary } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { ensureImage } from './build.js';
import {
  contextBytes,
  contextHash,
  offlineBaseContext,
  offlineContext,
  onlineContext,
  packContext,
  type CiBuildPath,
  type CiContext,
} from './ci-context.js';
import { loadRecipe } from './recipe.js';

export type { CiBuildPath } from './ci-context.js';

const CI_IMAGE_REPO = 'piper-agent-ci';
const CI_BASE_REPO = 'piper-agent-ci-base';
export const CI_LABEL = 'piper.ci-image';
export const CI_HASH_LABEL = 'piper.ci-image.hash';
export const CI_VERSION_LABEL = 'piper.version';
const CI_NODE_LABEL = 'piper.node';
/** On base images only (and inherited by the app images built on them). */
const CI_BASE_HASH_LABEL = 'piper.ci-base.hash';

/** One image to build: its context, the hash naming it, its reference and labels. */
interface ImagePlan {
  context: CiContext;
  hash: string;
  ref: string;
  labels: Record<string, string>;
}

export interface CiImageResult {
  ref: string;
  imageId: string;
  hash: string;
  version: string;
  path: CiBuildPath;
  skipped: boolean;
  /** The offline base image, and whether it was reused. */
  base?: { ref: string; imageId: string; skipped: boolean };
  /** Wall time of the whole call: hashing, and the builds when there were any. */
  seconds: number;
  lacks: string[];
}

type Log = (line: string) => void;

/** The CI image of the current app files: reused when one with their hash exists, built otherwise. */
export async function ensureCiImage(
  engine: DockerEngine,
  opts: { force?: boolean; path?: CiBuildPath; root?: string; log: Log },
): Promise<CiImageResult> {
  const t0 = Date.now();
  const root = opts.root ?? packageRoot();
  const path = opts.path ?? 'offline';
  const version = readVersion(root);
  let base: CiImageResult['base'];
  let lacks: string[] = [];
  let plan: ImagePlan;
  if (path === 'offline') {
    // The sandbox image is the root filesystem: build it first when this engine has none.
    const sandbox = await ensureImage(engine, { log: opts.log });
    const basePlan = await planBase(root, sandbox.imageId, sandbox.ref);
    lacks = basePlan.context.lacks;
    for (const missing of lacks) opts.log(`warning: the image will lack ${missing}`);
    const existingBase = opts.force
      ? null
      : await findImage(engine, CI_BASE_HASH_LABEL, basePlan.hash, CI_LABEL);
    const baseId = existingBase?.id ?? (await build(engine, basePlan, opts.log));
    base = { ref: basePlan.ref, imageId: baseId, skipped: Boolean(existingBase) };
    await engine.tagImage(baseId, CI_BASE_REPO, basePlan.hash.slice(0, 12));
    plan = await planApp(offlineContext(root, basePlan.ref), version, baseId);
  } else {
    plan = await planApp(onlineContext(root), version, '');
  }

  const existing = opts.force ? null : await findImage(engine, CI_HASH_LABEL, plan.hash);
  const imageId = existing?.id ?? (await build(engine, plan, opts.log));
  for (const tag of [plan.hash.slice(0, 12), 'latest', version])
    await engine.tagImage(imageId, CI_IMAGE_REPO, tag);
  return {
    ref: plan.ref,
    imageId,
    hash: plan.hash,
    version,
    path,
    skipped: Boolean(existing),
    base,
    seconds: (Date.now() - t0) / 1000,
    lacks,
  };
}

/**
 * The hash the current app files would have as an offline CI image, or null when it cannot be
 * known without building (no sandbox image, no base image for the current node_modules yet).
 */
export async function currentCiHash(engine: DockerEngine, root = packageRoot()): Promise<string | null> {
  const sandboxRef = loadRecipe(join(root, 'sandbox-images', 'python')).ref;
  const sandboxId = await engine.imageId(sandboxRef);
  if (!sandboxId) return null;
  const basePlan = await planBase(root, sandboxId, sandboxRef);
  const base = await findImage(engine, CI_BASE_HASH_LABEL, basePlan.hash, CI_LABEL);
  if (!base) return null;
  return (await planApp(offlineContext(root, basePlan.ref), readVersion(root), base.id)).hash;
}

export async function listCiImages(engine: DockerEngine): Promise<ImageSummary[]> {
  return engine.listImages([CI_LABEL]);
}

async function planBase(root: string, sandboxId: string, sandboxRef: string): Promise<ImagePlan> {
  const context = offlineBaseContext(root, sandboxRef);
  // The sandbox image's id is part of the hash: a rebuilt sandbox gives a new base.
  const hash = await contextHash(context, [sandboxId, process.version]);
  return {
    context,
    hash,
    ref: `${CI_BASE_REPO}:${hash.slice(0, 12)}`,
    labels: { [CI_BASE_HASH_LABEL]: hash, [CI_NODE_LABEL]: process.version },
  };
}

async function planApp(context: CiContext, version: string, baseId: string): Promise<ImagePlan> {
  // The base image's id is part of the hash: the same app on a new base is a new image.
  const hash = await contextHash(context, [baseId, version]);
  return {
    context,
    hash,
    ref: `${CI_IMAGE_REPO}:${hash.slice(0, 12)}`,
    labels: { [CI_LABEL]: '1', [CI_HASH_LABEL]: hash, [CI_VERSION_LABEL]: version },
  };
}

/**
 * The image carrying `label=hash`. Labels are inherited, so app images carry their base's hash
 * label too: `unless` names a label the wanted image must not have.
 */
async function findImage(
  engine: DockerEngine,
  label: string,
  hash: string,
  unless?: string,
): Promise<ImageSummary | null> {
  const images = await engine.listImages([`${label}=${hash}`]);
  return images.find((i) => !unless || i.labels[unless] === undefined) ?? null;
}

async function build(engine: DockerEngine, plan: ImagePlan, log: Log): Promise<string> {
  const mib = (contextBytes(plan.context) / (1 << 20)).toFixed(1);
  log(`building ${plan.ref} (context: ${plan.context.entries.length} files, ${mib} MiB)`);
  await engine.buildImage(packContext(plan.context), { t: plan.ref, labels: plan.labels }, (event) => {
    const line = (event.stream ?? event.status ?? '').trimEnd();
    if (line) log(`  ${line}`);
  });
  const imageId = await engine.imageId(plan.ref);
  if (!imageId)
    throw new RuntimeError('image_build_failed', `the build finished but ${plan.ref} is not there`);
  return imageId;
}

function readVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
