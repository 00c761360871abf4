// The patch files the JavaScript plan copies with the manifests (runtime/env/js/plan/patch-files.ts):
// pnpm's patchedDependencies and yarn berry's `patch:` protocol; never a path outside the repository.
import { describe, expect, it } from 'vitest';
import { planOf } from '../helpers/js-plan-repo.js';

describe('patch files', () => {
  it("reads pnpm's patchedDependencies from package.json and pnpm-workspace.yaml", () => {
    const plan = planOf({
      'package.json': { name: 'x', pnpm: { patchedDependencies: { 'a@1.0.0': 'patches/a@1.0.0.patch' } } },
      'pnpm-workspace.yaml': 'patchedDependencies:\n  b@2.0.0: patches/b@2.0.0.patch\n',
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'patches/a@1.0.0.patch': 'diff a',
      'patches/b@2.0.0.patch': 'diff b',
    });
    expect(plan.patchFiles?.map((p) => p.path)).toEqual(['patches/a@1.0.0.patch', 'patches/b@2.0.0.patch']);
  });

  it("reads berry's patch: specs, relative to the root or the manifest", () => {
    const plan = planOf({
      'package.json': {
        name: 'x',
        workspaces: ['packages/*'],
        resolutions: { lodash: 'patch:lodash@npm%3A4.17.21#~/.yarn/patches/lodash-npm-4.17.21.patch' },
      },
      'packages/a/package.json': {
        name: 'a',
        dependencies: { b: 'patch:b@npm%3A1.0.0#./b.patch::locator=a' },
      },
      '.yarn/patches/lodash-npm-4.17.21.patch': 'diff lodash',
      'packages/a/b.patch': 'diff b',
      'yarn.lock': '__metadata:\n  version: 8\n',
    });
    expect(plan.patchFiles?.map((p) => p.path)).toEqual([
      '.yarn/patches/lodash-npm-4.17.21.patch',
      'packages/a/b.patch',
    ]);
  });

  it('never copies a path outside the repository', () => {
    const plan = planOf({
      'package.json': { name: 'x', pnpm: { patchedDependencies: { a: '../../etc/passwd' } } },
    });
    expect(plan.patchFiles).toEqual([]);
    expect(plan.decisions.join('\n')).toContain('patch file ../../etc/passwd not copied');
  });
});
