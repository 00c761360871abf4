// The manifests the JavaScript plan names (runtime/env/js/plan/manifests.ts, workspace-glob.ts): the
// root's, then each workspace package's, from package.json `workspaces` (array or object) or
// pnpm-workspace.yaml, patterns matched over the repository listing; and the TypeScript gate's flag.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planJsEnvironment } from '../../runtime/env/js/plan/plan-js.js';
import { jsRepo, planOf } from '../helpers/js-plan-repo.js';

const member = (name: string) => ({ name, version: '1.0.0' });

describe('workspaces', () => {
  it('reads the array form, node_modules never listed', () => {
    const plan = planOf({
      'package.json': { name: 'root', private: true, workspaces: ['packages/*', 'tools/cli'] },
      'packages/a/package.json': member('a'),
      'packages/b/package.json': member('b'),
      'packages/b/node_modules/dep/package.json': member('dep'),
      'tools/cli/package.json': member('cli'),
      'tools/other/package.json': member('other'),
    });
    expect(plan.workspaces).toEqual(['packages/a', 'packages/b', 'tools/cli']);
    expect(plan.manifests.map((m) => m.path)).toEqual([
      'package.json',
      'packages/a/package.json',
      'packages/b/package.json',
      'tools/cli/package.json',
    ]);
  });

  it('reads the object form with ** and a braces alternative', () => {
    const plan = planOf({
      'package.json': { name: 'root', workspaces: { packages: ['{apps,libs}/**'], nohoist: ['**/x'] } },
      'apps/web/package.json': member('web'),
      'libs/deep/inner/package.json': member('inner'),
      'other/package.json': member('other'),
    });
    expect(plan.workspaces).toEqual(['apps/web', 'libs/deep/inner']);
  });

  it("reads pnpm-workspace.yaml's packages with exclusions", () => {
    const plan = planOf({
      'package.json': { name: 'root' },
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - '!packages/fixture-*'\n",
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'packages/core/package.json': member('core'),
      'packages/fixture-one/package.json': member('fixture'),
    });
    expect(plan.workspaces).toEqual(['packages/core']);
    expect(plan.decisions.join('\n')).toContain('workspaces from pnpm-workspace.yaml packages');
  });

  it('says when a manifest is not JSON and goes on', () => {
    const plan = planOf({
      'package.json': { name: 'root', workspaces: ['packages/*'] },
      'packages/a/package.json': '{ not json',
      'packages/b/package.json': member('b'),
    });
    expect(plan.workspaces).toEqual(['packages/b']);
    expect(plan.decisions.join('\n')).toContain('packages/a/package.json not read: not a JSON object');
  });

  it('fails with a clear error without a root package.json', () => {
    expect(() => planOf({ 'README.md': 'hi' })).toThrow(/no readable package.json/);
  });
});

describe('TypeScript', () => {
  it('needs both a tsconfig.json and the typescript package', () => {
    const ts = { name: 'x', devDependencies: { typescript: '5.6.3' } };
    expect(planOf({ 'package.json': ts, 'tsconfig.json': '{}' }).typescript).toBe(true);
    expect(planOf({ 'package.json': ts }).typescript).toBe(false);
    expect(planOf({ 'package.json': { name: 'x' }, 'tsconfig.json': '{}' }).typescript).toBe(false);
    const inMember = {
      'package.json': { name: 'root', workspaces: ['packages/*'] },
      'packages/a/package.json': { name: 'a', devDependencies: { typescript: '^5' } },
      'tsconfig.json': '{}',
    };
    expect(planOf(inMember).typescript).toBe(true);
  });
});

describe('hostile layouts', () => {
  it('reads no manifest through a link out of the repository', () => {
    const outside = mkdtempSync(join(tmpdir(), 'piper-js-outside-'));
    writeFileSync(join(outside, 'package.json'), JSON.stringify({ name: 'secret' }));
    writeFileSync(join(outside, '.npmrc'), 'registry=https://outside.example/\n');
    const root = jsRepo({ 'package.json': { name: 'root', workspaces: ['packages/*'] } });
    mkdirSync(join(root, 'packages'));
    symlinkSync(outside, join(root, 'packages/linked'));
    symlinkSync(join(outside, '.npmrc'), join(root, '.npmrc'));
    const plan = planJsEnvironment(root);
    expect(plan.workspaces).toEqual([]);
    expect(plan.configFiles).toEqual([]);
    expect(JSON.stringify(plan)).not.toContain('outside.example');
    rmSync(outside, { recursive: true, force: true });
  });

  it('refuses a pattern made to backtrack, in bounded time', () => {
    const start = Date.now();
    const plan = planOf({
      'package.json': { name: 'root', workspaces: ['**/a**/b**/c**/d**/e', `${'**/'.repeat(50)}x`] },
      [`${'a/'.repeat(40)}package.json`]: { name: 'deep' },
    });
    expect(plan.workspaces).toEqual([]);
    expect(Date.now() - start).toBeLessThan(5000);
  });
});
