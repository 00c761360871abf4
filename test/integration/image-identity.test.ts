// An image built FROM the sandbox image inherits its recipe label, and must never be taken for (and
// re-tagged as) the sandbox image: every command's sandbox would then start from a project's image.
// Children are built here with the engine's own build from the local sandbox ref (no pulls), are
// newer than it, and are removed afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureImage, findImage } from '../../runtime/images/build.js';
import { builtImage } from '../../runtime/images/built-images.js';
import { packDirectory } from '../../runtime/images/pack-dir.js';
import { RECIPE_LABEL, loadRecipe } from '../../runtime/images/recipe.js';
import { runCli } from '../helpers/cli.js';
import { engine } from '../helpers/sandbox.js';

const recipe = loadRecipe();
const CHILD_REPO = 'piper-test-child';
const children: string[] = [];
let original: string;
let contextDir: string;

/** A child of the sandbox image, built with `dockerfile` (FROM the sandbox ref) and tagged. */
async function buildChild(lines: string[]): Promise<string> {
  const tag = randomBytes(6).toString('hex');
  writeFileSync(join(contextDir, 'Dockerfile'), [`FROM ${recipe.ref}`, ...lines, ''].join('\n'));
  await engine.buildImage(
    packDirectory(contextDir),
    { t: `${CHILD_REPO}:${tag}`, labels: { 'piper.test': 'image-identity' } },
    () => {},
  );
  const ref = `${CHILD_REPO}:${tag}`;
  children.push(ref);
  return ref;
}

beforeAll(async () => {
  // The sandbox image as piper built it (recorded); builds only when this machine has no record.
  original = (await ensureImage(engine, { log: () => {} })).imageId;
  contextDir = mkdtempSync(join(tmpdir(), 'piper-child-'));
  writeFileSync(join(contextDir, 'marker'), 'a child image\n');
});

afterAll(async () => {
  for (const ref of children) await engine.removeImage(ref).catch(() => undefined);
  rmSync(contextDir, { recursive: true, force: true });
});

describe('the sandbox image is what piper built, never an image carrying its label', () => {
  it('a newer child (one more layer, or only another config) is never tagged as the sandbox image', async () => {
    const sandbox = await engine.inspectImage(recipe.ref);
    expect(sandbox?.id).toBe(original);
    const withLayer = await buildChild(['COPY marker /marker']);
    const configOnly = await buildChild(['ENV PIPER_CHILD=1']);
    for (const ref of [withLayer, configOnly]) {
      const child = await engine.inspectImage(ref);
      // The threat: the label is inherited and the child is newer than the sandbox image.
      expect(child?.labels[RECIPE_LABEL]).toBe(recipe.hash);
      expect(Date.parse(child!.created)).toBeGreaterThan(Date.parse(sandbox!.created));
      expect(child?.id).not.toBe(original);
    }
    expect((await engine.inspectImage(configOnly))?.layers).toEqual(sandbox?.layers);

    const build = await runCli(['image', 'build']);
    expect(build.code).toBe(0);
    expect(build.stdout).toContain(`${recipe.ref} ${original} up to date`);
    expect(await engine.imageId(recipe.ref)).toBe(original);
    expect((await findImage(engine, recipe.hash))?.id).toBe(original);
    const labelled = await engine.listImages([`${RECIPE_LABEL}=${recipe.hash}`]);
    for (const ref of [withLayer, configOnly]) {
      const id = await engine.imageId(ref);
      const tags = labelled.find((i) => i.id === id)?.tags ?? [];
      expect(tags).toEqual([ref]);
    }

    const ls = await runCli(['image', 'ls']);
    expect(ls.code).toBe(0);
    for (const ref of [withLayer, configOnly]) {
      const line = ls.stdout.split('\n').find((l) => l.includes(ref));
      expect(line).toContain('not built by piper: ignored');
    }
    expect(ls.stdout.split('\n').find((l) => l.includes(recipe.ref))).toMatch(/^\* .*trixie$/);
  });

  it('with no record of a build, no labelled image is the sandbox image (the next build rebuilds)', async () => {
    const saved = process.env.PIPER_STATE_DIR;
    const empty = mkdtempSync(join(tmpdir(), 'piper-state-'));
    process.env.PIPER_STATE_DIR = empty;
    try {
      expect(builtImage(recipe.hash)).toBeNull();
      expect(await findImage(engine, recipe.hash)).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.PIPER_STATE_DIR;
      else process.env.PIPER_STATE_DIR = saved;
      rmSync(empty, { recursive: true, force: true });
    }
    expect((await findImage(engine, recipe.hash))?.id).toBe(original);
  });
});
