// The environment's content key: stable under edits that cannot change the image,
// different under every edit that can — without an engine (the base image id is given).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutKey, environmentKey } from '../../runtime/env/choose/key.js';
import { pipSettings } from '../../runtime/env/plan/pip-settings.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { packageRoot } from '../../runtime/package-root.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-env-key-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const BASE = 'sha256:1111';

function repo(): string {
  const dir = mkdtempSync(join(scratch, 'r-'));
  cpSync(join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'), dir, { recursive: true });
  return dir;
}

function keyOf(dir: string, opts: { base?: string; env?: NodeJS.ProcessEnv; trust?: boolean } = {}): string {
  const plan = planEnvironment(dir);
  const pip = pipSettings(plan, opts.env ?? {}, { trustRepoIndex: opts.trust ?? false, repoRoot: dir });
  return environmentKey({
    plan,
    baseImageId: opts.base ?? BASE,
    pip,
    setup: opts.trust ? plan.setup : [],
    repoRoot: dir,
    strict: false,
  });
}

describe('environment key', () => {
  it('is the same for the same inputs, and after README, test and source edits', () => {
    const dir = repo();
    const key = keyOf(dir);
    expect(keyOf(dir)).toBe(key);
    writeFileSync(join(dir, 'README.md'), 'a new readme\n');
    writeFileSync(join(dir, 'tests', 'test_more.py'), 'def test_more():\n    pass\n');
    writeFileSync(join(dir, 'src', 'tinycalc', 'extra.py'), 'X = 1\n');
    expect(keyOf(dir)).toBe(key);
  });

  it('changes with a dependency file, the recipe, the base image and the pip settings', () => {
    const dir = repo();
    const key = keyOf(dir);
    writeFileSync(join(dir, 'requirements-dev.txt'), 'packaging>=24\n');
    const withRequirements = keyOf(dir);
    expect(withRequirements).not.toBe(key);
    mkdirSync(join(dir, '.piper'));
    writeFileSync(join(dir, '.piper', 'sandbox.toml'), 'apt = ["jq"]\n');
    const withRecipe = keyOf(dir);
    expect(withRecipe).not.toBe(withRequirements);
    expect(keyOf(dir, { base: 'sha256:2222' })).not.toBe(withRecipe);
    expect(keyOf(dir, { env: { PIP_INDEX_URL: 'http://127.0.0.1:1/simple/' } })).not.toBe(withRecipe);
  });

  it("ignores an untrusted recipe's setup commands, and counts them once trusted", () => {
    const dir = repo();
    mkdirSync(join(dir, '.piper'));
    writeFileSync(join(dir, '.piper', 'sandbox.toml'), 'setup = ["make gen"]\n');
    expect(keyOf(dir, { trust: true })).not.toBe(keyOf(dir, { trust: false }));
  });

  it("keys what the project's build produced by every snapshot file: a source edit is another checkout", () => {
    const dir = repo();
    const declarations = keyOf(dir);
    const checkout = checkoutKey(declarations, dir);
    expect(checkoutKey(declarations, dir)).toBe(checkout);
    writeFileSync(join(dir, 'src', 'tinycalc', 'extra.py'), 'X = 2\n');
    expect(keyOf(dir)).toBe(declarations);
    const edited = checkoutKey(declarations, dir);
    expect(edited).not.toBe(checkout);
    writeFileSync(join(dir, 'README.md'), 'another readme\n');
    expect(checkoutKey(declarations, dir)).not.toBe(edited);
  });
});
