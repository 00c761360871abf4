// The environment's content keys, hashes of the build spec: stable under edits that cannot change
// the image, different under every edit that can — without an engine (the base recipe is given).
import { stepCatalog } from '../../runtime/env/build/step-catalog.js';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { declarationsKey, imageKey } from '../../runtime/env/choose/key.js';
import { makeBuildSpec } from '../../runtime/env/spec/build-spec.js';
import { redactSpec, type BuildSpec } from '../../runtime/env/spec/spec-schema.js';
import { pipSettings } from '../../runtime/env/plan/pip-settings.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { packageRoot } from '../../runtime/package-root.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-env-key-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const BASE = '1111';

function repo(): string {
  const dir = mkdtempSync(join(scratch, 'r-'));
  cpSync(join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'), dir, { recursive: true });
  return dir;
}

function specOf(
  dir: string,
  opts: { base?: string; env?: NodeJS.ProcessEnv; trust?: boolean } = {},
): BuildSpec {
  const plan = planEnvironment(dir);
  const pip = pipSettings(plan, opts.env ?? {}, { trustRepoIndex: opts.trust ?? false, repoRoot: dir });
  return makeBuildSpec({
    steps: stepCatalog(),
    repoRoot: dir,
    plan,
    base: { suite: plan.debian, recipe: opts.base ?? BASE },
    pip,
    setup: opts.trust ? plan.setup : [],
    trustUrls: opts.trust ?? false,
    strict: false,
  });
}

function keyOf(dir: string, opts: { base?: string; env?: NodeJS.ProcessEnv; trust?: boolean } = {}): string {
  return declarationsKey(specOf(dir, opts));
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
    expect(keyOf(dir, { base: '2222' })).not.toBe(withRecipe);
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
    const checkout = imageKey(specOf(dir));
    expect(checkout).not.toBe(declarations);
    expect(imageKey(specOf(dir))).toBe(checkout);
    writeFileSync(join(dir, 'src', 'tinycalc', 'extra.py'), 'X = 2\n');
    expect(keyOf(dir)).toBe(declarations);
    const edited = imageKey(specOf(dir));
    expect(edited).not.toBe(checkout);
    writeFileSync(join(dir, 'README.md'), 'another readme\n');
    expect(imageKey(specOf(dir))).not.toBe(edited);
  });

  it('keys a link apart from a file whose text names its target (the key is of each entry and its kind)', () => {
    const link = repo();
    symlinkSync('README.md', join(link, 'NOTES'));
    const file = repo();
    writeFileSync(join(file, 'NOTES'), '-> README.md');
    expect(keyOf(link)).toBe(keyOf(file));
    expect(imageKey(specOf(link))).not.toBe(imageKey(specOf(file)));
  });

  it("changes with any step's script: the build's own code is in the key, no version to bump", () => {
    const spec = specOf(repo());
    const steps = spec.steps.map((s, i) =>
      i === spec.steps.length - 1 ? { ...s, script: `${s.script}\n` } : s,
    );
    expect(declarationsKey({ ...spec, steps })).not.toBe(declarationsKey(spec));
    expect(imageKey({ ...spec, steps })).not.toBe(imageKey(spec));
    expect(spec.steps.map((s) => s.step)).toEqual(
      expect.arrayContaining(['venv', 'pip', 'project', 'launchers']),
    );
  });

  it('shows and hashes the index without its credentials: a new password is the same index', () => {
    const dir = repo();
    const url = (pw: string) => ({ PIP_INDEX_URL: `http://user:${pw}@127.0.0.1:1/simple/` });
    const spec = specOf(dir, { env: url('s3cret-one') });
    expect(spec.pip.indexUrl).toContain('s3cret-one');
    expect(JSON.stringify(redactSpec(spec))).not.toContain('s3cret-one');
    expect(keyOf(dir, { env: url('s3cret-two') })).toBe(declarationsKey(spec));
  });
});
