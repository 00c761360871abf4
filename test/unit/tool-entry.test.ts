// Each tool folder (primitives/tools/<name>/) has one public entry, its tool.ts: the declaration
// with its limits, and what the folder lends to others (a target's argv, one run for the grading).
// Nothing outside the folder reaches its effect or helpers, so a tool's insides can change freely.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ROOT = packageRoot();
const LAYERS = ['cli', 'core', 'policy', 'primitives', 'runtime', 'eval', 'bench'];
const TOOL_FILE = /^primitives\/tools\/([a-z-]+)\/([^/]+)\.ts$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

function reachesInside(): string[] {
  const out: string[] = [];
  for (const file of LAYERS.flatMap((layer) => files(join(ROOT, layer)))) {
    const from = relative(ROOT, file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']*)'/g)) {
      const target = relative(ROOT, resolve(dirname(file), spec!)).replace(/\.js$/, '.ts');
      const inside = TOOL_FILE.exec(target);
      if (!inside || inside[2] === 'tool' || from.startsWith(`primitives/tools/${inside[1]}/`)) continue;
      out.push(`${from} → ${target}`);
    }
  }
  return out;
}

describe('tool folders', () => {
  it('are reached from outside only through their tool.ts', () => {
    expect(reachesInside()).toEqual([]);
  });
});
