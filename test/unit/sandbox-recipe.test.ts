// The sandbox recipe per Debian suite, and the record of what piper built (no engine needed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  builtImage,
  builtImagesPath,
  matchesRecord,
  readBuiltImages,
  recordBuiltImage,
  type BuiltImage,
} from '../../runtime/images/built-images.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { loadRecipe, sandboxPython } from '../../runtime/images/recipe.js';

describe('loadRecipe', () => {
  it('builds trixie (Python 3.13) by default, with venv, pip, setuptools and wheel', () => {
    const recipe = loadRecipe();
    expect(recipe.suite).toBe('trixie');
    expect(recipe.python).toBe('3.13');
    expect(recipe.ref).toBe(`piper-sandbox-python:${recipe.hash.slice(0, 12)}`);
    const meta = JSON.parse(readFileSync(join(recipe.dir, 'recipe.json'), 'utf8')) as { packages: string[] };
    expect(meta.packages).toEqual(
      expect.arrayContaining(['python3-venv', 'python3-pip', 'python3-setuptools', 'python3-wheel']),
    );
    // Both build paths install recipe.json's list through packages.sh, and the Dockerfile's ENV is its env.
    const dockerfile = readFileSync(join(recipe.dir, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('$(/tmp/recipe/packages.sh /tmp/recipe/recipe.json "$SUITE")');
    expect(readFileSync(join(recipe.dir, 'build-rootfs.sh'), 'utf8')).toContain(
      '"$here/packages.sh" "$here/recipe.json" "$suite"',
    );
    const envLine = /^ENV (.*)$/m.exec(dockerfile)![1]!;
    const dockerEnv = [...envLine.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map(
      (m) => `${m[1]}=${m[2]!.replace(/^"|"$/g, '')}`,
    );
    expect(dockerEnv).toEqual(recipe.env);
  });

  it("has a CI runner's tools, each package with its reason, and the list packages.sh prints", () => {
    const recipe = loadRecipe();
    const meta = JSON.parse(readFileSync(join(recipe.dir, 'recipe.json'), 'utf8')) as {
      packages: string[];
      'suite-packages': Record<string, string[]>;
      reasons: Record<string, string>;
    };
    expect(meta.packages).toEqual(
      expect.arrayContaining([
        'git',
        'less',
        'procps',
        'make',
        'cpp',
        'tzdata',
        'ca-certificates',
        'python-is-python3',
      ]),
    );
    // Debian 13 moved the legacy zone names (US/Pacific) out of tzdata; Debian 12's tzdata has them.
    expect(meta['suite-packages']).toEqual({ trixie: ['tzdata-legacy'], bookworm: [], bullseye: [] });
    const own = Object.values(meta['suite-packages']).flat();
    expect(Object.keys(meta.reasons).sort()).toEqual([...meta.packages, ...own].sort());
    const printed = (...suite: string[]) =>
      execFileSync(join(recipe.dir, 'packages.sh'), [join(recipe.dir, 'recipe.json'), ...suite], {
        encoding: 'utf8',
      })
        .trim()
        .split(' ');
    expect(printed()).toEqual([...meta.packages, 'tzdata-legacy']);
    expect(printed('trixie')).toEqual([...meta.packages, 'tzdata-legacy']);
    expect(printed('bookworm')).toEqual(meta.packages);
    expect(printed('bullseye')).toEqual(meta.packages);
    expect(recipe.env).toEqual(expect.arrayContaining(['LANG=C.UTF-8', 'PAGER=less', 'LESS=-FRX']));
  });

  it('makes bookworm selectable: its own hash and tag, Python 3.11', () => {
    const trixie = loadRecipe({ suite: 'trixie' });
    const bookworm = loadRecipe({ suite: 'bookworm' });
    expect(trixie.hash).toBe(loadRecipe().hash);
    expect(bookworm.hash).not.toBe(trixie.hash);
    expect(bookworm.ref).not.toBe(trixie.ref);
    expect(bookworm.python).toBe('3.11');
    expect(sandboxPython('bookworm')).toBe('3.11');
    expect(sandboxPython('trixie')).toBe('3.13');
    expect(sandboxPython()).toBe('3.13');
    const bullseye = loadRecipe({ suite: 'bullseye' });
    expect([bullseye.python, sandboxPython('bullseye')]).toEqual(['3.9', '3.9']);
    expect(new Set([trixie.tag, bookworm.tag, bullseye.tag]).size).toBe(3);
  });

  it('refuses a suite it does not build', () => {
    let caught: unknown;
    try {
      loadRecipe({ suite: 'buster' as 'trixie' });
    } catch (error) {
      caught = error;
    }
    expect(isRuntimeError(caught, 'image_build_failed')).toBe(true);
  });
});

describe('the record of built images', () => {
  let dir: string;
  const saved = process.env.PIPER_STATE_DIR;
  const record: BuiltImage = {
    recipeHash: 'a'.repeat(64),
    imageId: 'sha256:1111',
    layers: ['sha256:aaaa'],
    ref: 'piper-sandbox-python:aaaaaaaaaaaa',
    suite: 'trixie',
    builtAt: '2025-01-01T00:00:00.000Z',
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'piper-state-'));
    process.env.PIPER_STATE_DIR = join(dir, 'nested');
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.PIPER_STATE_DIR;
    else process.env.PIPER_STATE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('is empty with no file, and keeps one record per recipe hash', () => {
    expect(readBuiltImages()).toEqual({});
    expect(builtImage(record.recipeHash)).toBeNull();
    recordBuiltImage(record);
    const other = { ...record, recipeHash: 'b'.repeat(64), imageId: 'sha256:2222', suite: 'bookworm' };
    recordBuiltImage(other);
    recordBuiltImage({ ...record, imageId: 'sha256:3333' });
    expect(builtImage(record.recipeHash)?.imageId).toBe('sha256:3333');
    expect(builtImage(other.recipeHash)?.imageId).toBe('sha256:2222');
  });

  it("keeps each engine's record of one recipe: a build through Podman leaves Docker's as it was", () => {
    const saved = process.env.DOCKER_HOST;
    try {
      delete process.env.DOCKER_HOST;
      recordBuiltImage(record);
      process.env.DOCKER_HOST = 'unix:///run/podman/podman.sock';
      expect(builtImage(record.recipeHash)).toBeNull();
      recordBuiltImage({ ...record, imageId: 'sha256:4444' });
      expect(builtImage(record.recipeHash)?.imageId).toBe('sha256:4444');
      delete process.env.DOCKER_HOST;
      expect(builtImage(record.recipeHash)?.imageId).toBe(record.imageId);
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });

  it('treats a malformed file or a record under another hash as no record', () => {
    recordBuiltImage(record);
    writeFileSync(builtImagesPath(), '{not json');
    expect(readBuiltImages()).toEqual({});
    writeFileSync(builtImagesPath(), JSON.stringify({ ['c'.repeat(64)]: record }));
    expect(readBuiltImages()).toEqual({});
  });

  it('matches only the same id with the same layers', () => {
    expect(matchesRecord({ id: 'sha256:1111', layers: ['sha256:aaaa'] }, record)).toBe(true);
    expect(matchesRecord({ id: 'sha256:9999', layers: ['sha256:aaaa'] }, record)).toBe(false);
    expect(matchesRecord({ id: 'sha256:1111', layers: ['sha256:aaaa', 'sha256:bbbb'] }, record)).toBe(false);
  });
});
