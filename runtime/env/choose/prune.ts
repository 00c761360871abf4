// Old environment images go: after each build the project keeps its newest three; `env prune`
// applies the same rule to every project and also removes sandbox images of older recipes.
import type { DockerEngine, ImageSummary } from '../../engine/docker-engine.js';
import { listSandboxImages } from '../../images/build.js';
import { CI_HASH_LABEL, currentCiHash, listCiImages } from '../../images/ci-image.js';
import { RECIPE_LABEL, SUITE_PYTHON, loadRecipe, type Suite } from '../../images/recipe.js';
import { DEBIAN_LAYER, ENV_LABEL, projectId } from '../floor/names.js';

export async function listEnvImages(engine: DockerEngine): Promise<ImageSummary[]> {
  return engine.listImages([ENV_LABEL.key]);
}

/** Removes this project's environment images beyond the newest `keep` (never `current`). */
export async function pruneProjectImages(
  engine: DockerEngine,
  repoRoot: string,
  opts: { keep: number; current?: string },
): Promise<ImageSummary[]> {
  const mine = (await engine.listImages([`${ENV_LABEL.project}=${projectId(repoRoot)}`])).filter(
    (i) => i.tags.length > 0,
  );
  return removeBeyond(engine, mine, opts.keep, opts.current);
}

/** Every project's environment images beyond the newest `keep` each; `keep: 0` removes them all. */
export async function pruneAllEnvImages(engine: DockerEngine, keep: number): Promise<ImageSummary[]> {
  const byProject = new Map<string, ImageSummary[]>();
  for (const image of await listEnvImages(engine)) {
    const project = image.labels[ENV_LABEL.project] ?? '';
    byProject.set(project, [...(byProject.get(project) ?? []), image]);
  }
  const removed: ImageSummary[] = [];
  for (const images of byProject.values()) removed.push(...(await removeBeyond(engine, images, keep)));
  return removed;
}

/**
 * Debian-package layers beyond the newest `keep`: they belong to no project. A layer an environment
 * image stands on cannot be removed (the engine refuses a parent) and stays until that image goes.
 */
export async function pruneDebianLayers(
  engine: DockerEngine,
  keep: number,
  /** Label filters that narrow the layers considered (`key=value`): a shared engine's test, its own. */
  narrowedTo: string[] = [],
): Promise<ImageSummary[]> {
  return removeBeyond(engine, await engine.listImages([DEBIAN_LAYER.label, ...narrowedTo]), keep);
}

async function removeBeyond(
  engine: DockerEngine,
  images: ImageSummary[],
  keep: number,
  current?: string,
): Promise<ImageSummary[]> {
  const old = [...images]
    .sort((a, b) => b.created - a.created)
    .slice(keep)
    .filter((i) => i.id !== current);
  const removed: ImageSummary[] = [];
  for (const image of old) {
    try {
      await engine.removeImage(image.id);
      removed.push(image);
    } catch {
      // In use by a running container, or a parent of another image: it stays until next time.
    }
  }
  return removed;
}

/**
 * Sandbox images piper built from an older recipe (any suite), and CI images of older app files.
 * Images piper did not build are left alone; so is everything when the current CI hash is unknown.
 */
export async function pruneOldBaseImages(engine: DockerEngine): Promise<ImageSummary[]> {
  const current = new Set((Object.keys(SUITE_PYTHON) as Suite[]).map((suite) => loadRecipe({ suite }).hash));
  const old = (await listSandboxImages(engine)).filter(
    (i) => i.builtByPiper && !current.has(i.labels[RECIPE_LABEL] ?? ''),
  );
  const ciHash = await currentCiHash(engine).catch(() => null);
  const oldCi = ciHash
    ? (await listCiImages(engine)).filter(
        (i) => i.labels[CI_HASH_LABEL] && i.labels[CI_HASH_LABEL] !== ciHash,
      )
    : [];
  const removed: ImageSummary[] = [];
  for (const image of [...old, ...oldCi]) {
    try {
      await engine.removeImage(image.id);
      removed.push(image);
    } catch {
      // In use, or the parent of another image: it stays.
    }
  }
  return removed;
}
