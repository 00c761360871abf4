// The environment wing's folders import one way: plan → spec → build → choose and run, each from the
// ones before it, with the names and small helpers every stage shares on a floor below them all
// (runtime/env/floor/). A stage that reached forward (the builder asking the chooser for an image
// name) would tie what a build makes to how a command picks it; no two folders import each other.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ENV = join(packageRoot(), 'runtime', 'env');

/** Each top folder of runtime/env and the folders it may import from. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  floor: [],
  plan: ['floor'],
  spec: ['floor', 'plan'],
  build: ['floor', 'plan', 'spec'],
  choose: ['floor', 'plan', 'spec', 'build', 'run', 'js'],
  run: ['floor', 'plan', 'spec', 'build'],
  // A second language's plan and build (runtime/env/js/): beside Python's, chosen by choose/.
  js: ['floor', 'plan', 'spec', 'build'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

function stageOf(path: string): string {
  return relative(ENV, path).split('/')[0]!;
}

function crossings(): string[] {
  const out: string[] = [];
  for (const file of files(ENV)) {
    const from = stageOf(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']*)'/g)) {
      const target = resolve(dirname(file), spec!);
      if (relative(ENV, target).startsWith('..')) continue;
      const to = stageOf(target);
      if (to !== from && !(MAY_IMPORT[from] ?? []).includes(to)) out.push(`${relative(ENV, file)} → ${to}`);
    }
  }
  return out;
}

describe('runtime/env: one-way flow between its folders', () => {
  it('every top folder is a known stage', () => {
    const tops = readdirSync(ENV).filter((n) => statSync(join(ENV, n)).isDirectory() && n !== 'data');
    expect(tops.filter((n) => !(n in MAY_IMPORT))).toEqual([]);
  });

  it('no folder imports a later stage', () => {
    expect(crossings()).toEqual([]);
  });
});
