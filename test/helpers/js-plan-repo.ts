// Small JavaScript repositories written to temporary directories for the JS planner's tests: each
// file given as text, package.json as an object too; all removed after each test.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { planJsEnvironment, type JsPlanOptions } from '../../runtime/env/js/plan/plan-js.js';
import type { JsPlan } from '../../runtime/env/js/plan/js-plan.js';

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

export function jsRepo(files: Record<string, string | object>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-js-plan-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

export function planOf(files: Record<string, string | object>, opts?: JsPlanOptions): JsPlan {
  return planJsEnvironment(jsRepo(files), opts);
}

/** A CI workflow with one job whose steps are the given `run:` lines (and a setup-node of `node`). */
export function workflow(runs: string[], node: string | number = 20): string {
  const steps = runs.map((r) => `      - run: ${r}`).join('\n');
  return `name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: ${node}\n${steps}\n`;
}
