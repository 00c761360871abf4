// How a project environment is named on the engine. The tag is the first 12 hex digits of its
// content key, the repository name says which project it belongs to, and the labels carry the full
// key and the base image id, so a cache hit is an exact match on both, never a prefix or a guess.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';

const ENV_IMAGE_PREFIX = 'piper-env-';
export const ENV_LABEL = {
  key: 'piper.env.key',
  project: 'piper.env.project',
  base: 'piper.env.base',
  /** Where the packages came from: `index`, `debian`, or `debian-fallback` (the index did not answer). */
  sources: 'piper.env.sources',
} as const;

/** Debian-package layers (build/debian-layer.ts): shared by every project, named by their key. */
export const DEBIAN_LAYER = { repo: 'piper-debian-packages', label: 'piper.env.debian-layer' } as const;

/** Where the project's virtual environment lives in the image. */
export const VENV = '/opt/piper/venv';
export const VENV_PYTHON = `${VENV}/bin/python`;
/** The image's PATH: the venv first, so `python3` and `pytest` are the project's. */
export const ENV_PATH = `${VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;

/**
 * A short, stable id for a repository: its real path, hashed (the path itself stays off the tag) —
 * or, when the caller says the tree is one checkout of a project it names (`projectName`: the
 * evaluation's base commits of one repository, each its own tree), that name, hashed, so those
 * trees share an image per content key.
 */
export function projectId(repoRoot: string, projectName?: string): string {
  if (projectName !== undefined)
    return createHash('sha256').update(`project:${projectName}`).digest('hex').slice(0, 12);
  let real = repoRoot;
  try {
    real = realpathSync(repoRoot);
  } catch {
    // A path that does not resolve is hashed as given; the plan fails on it before any build.
  }
  return createHash('sha256').update(real).digest('hex').slice(0, 12);
}

export function envImageRef(
  repoRoot: string,
  key: string,
  projectName?: string,
): { repo: string; tag: string; ref: string } {
  const repo = `${ENV_IMAGE_PREFIX}${projectId(repoRoot, projectName)}`;
  const tag = key.slice(0, 12);
  return { repo, tag, ref: `${repo}:${tag}` };
}

/** The phases whose images one build makes between them. */
export type IntermediatePhase =
  'deps' | 'net' | 'wheels' | 'tools' | 'sdist-tools' | 'topup' | 'topup-apt' | 'debian' | 'apt-recipe';

/**
 * The tag of an image one build makes between its phases (`<key12>-deps-<build>`): named by the
 * build, so no other build (a rebuild of the same key, another process) ever uses or removes it.
 */
export function intermediateTag(target: { tag: string }, phase: IntermediatePhase, buildId: string): string {
  return `${target.tag}-${phase}-${buildId}`;
}
