// Where an environment's packages come from: the `sources` setting through the configuration's
// layers (a repository's may only narrow) and the recipe, its place in the content keys (an index
// build, a Debian build and a fallback never share one), pip's own patience instead of a 5 s
// timeout, and the steps each source runs. No engine: the build against a real one is
// test/integration/env-sources.test.ts.
import { stepCatalog } from '../../runtime/env/build/step-catalog.js';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { ConfigError, UsageError } from '../../core/exit-codes.js';
import { sourcesFlag, sourcesSetting } from '../../core/env-option.js';
import { environmentText } from '../../cli/render/headless.js';
import { declarationsKey, imageKey } from '../../runtime/env/choose/key.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { isEnvPlanError } from '../../runtime/env/plan/errors.js';
import { pipSettings, pipSourceEnv } from '../../runtime/env/plan/pip-settings.js';
import { makeBuildSpec } from '../../runtime/env/spec/build-spec.js';
import { chooseSources, prepareSpec } from '../../runtime/env/spec/prepare-spec.js';
import { fallbackSpec, sourcesLabel, type BuildSpec } from '../../runtime/env/spec/spec-schema.js';
import { offlineInstallStep, pipDownloadStep } from '../../runtime/env/build/deps/download-steps.js';
import { buildDepsDownloadStep } from '../../runtime/env/build/deps/sdist-build-deps.js';
import { parseVersionsScan } from '../../runtime/env/build/deps/installed-versions.js';
import { indexProbeStep } from '../../runtime/env/build/steps.js';
import { Redactor } from '../../runtime/env/plan/secrets.js';
import { packageRoot } from '../../runtime/package-root.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-env-sources-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let xdg: string;
let repo: string;
let env: NodeJS.ProcessEnv;

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}
const userFile = () => join(xdg, 'piper-agent', 'config.json');
const repoFile = () => join(repo, '.piper', 'config.json');

beforeEach(() => {
  const base = mkdtempSync(join(scratch, 'c-'));
  xdg = join(base, 'xdg');
  repo = join(base, 'repo');
  mkdirSync(repo, { recursive: true });
  // Only what each test sets: nothing of the machine's own configuration.
  env = { XDG_CONFIG_HOME: xdg };
});

describe('the sources setting', () => {
  it('is index by default, shown with its layer', () => {
    const e = loadConfig({ repo, env });
    expect(e.config.sources).toBe('index');
    expect(e.sources.sources).toBe('default');
    expect(sourcesSetting(repo, {}, env)).toEqual({ value: 'index', from: 'default' });
  });

  it('takes each layer over the one below: your file < PIPER_SOURCES < --sources', () => {
    writeJson(userFile(), { sources: 'debian' });
    expect(sourcesSetting(repo, {}, env)).toEqual({ value: 'debian', from: 'user' });
    expect(sourcesSetting(repo, {}, { ...env, PIPER_SOURCES: 'index' })).toEqual({
      value: 'index',
      from: 'env',
    });
    expect(sourcesSetting(repo, { sources: 'debian' }, { ...env, PIPER_SOURCES: 'index' })).toEqual({
      value: 'debian',
      from: 'flag',
    });
  });

  it('refuses any other value, naming where it was', () => {
    expect(() => sourcesFlag('pypi')).toThrow(UsageError);
    expect(() => sourcesFlag('pypi')).toThrow('--sources must be index or debian, got "pypi"');
    expect(() => loadConfig({ repo, env: { ...env, PIPER_SOURCES: 'both' } })).toThrow(ConfigError);
    expect(() => loadConfig({ repo, env: { ...env, PIPER_SOURCES: 'both' } })).toThrow(/sources/);
    writeJson(userFile(), { sources: 'apt' });
    expect(() => loadConfig({ repo, env })).toThrow(/bad configuration in .*config\.json: sources/);
  });

  it("a repository's config may narrow to debian, but turns the index back on only with your trust", () => {
    writeJson(repoFile(), { sources: 'debian' });
    expect(sourcesSetting(repo, {}, env)).toEqual({ value: 'debian', from: 'repo' });
    writeJson(userFile(), { sources: 'debian' });
    writeJson(repoFile(), { sources: 'index' });
    const untrusted = loadConfig({ repo, env });
    expect(untrusted.config.sources).toBe('debian');
    expect(untrusted.ignored).toEqual([
      expect.objectContaining({ key: 'sources', value: 'index', reason: expect.stringContaining('index') }),
    ]);
    expect(sourcesSetting(repo, { 'trust-repo-config': true }, env)).toEqual({
      value: 'index',
      from: 'repo',
    });
  });
});

describe("the recipe's sources", () => {
  it('is read from .piper/sandbox.toml, and a wrong value is an error naming the key', () => {
    mkdirSync(join(repo, '.piper'));
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), 'sources = "debian"\n');
    expect(planEnvironment(repo).sources).toBe('debian');
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), 'sources = "conda"\n');
    let error: unknown;
    try {
      planEnvironment(repo);
    } catch (e) {
      error = e;
    }
    expect(isEnvPlanError(error)).toBe(true);
    expect((error as Error).message).toContain('key "sources"');
  });

  it('weighs against the setting: a flag or variable wins; debian always narrows; index over your debian needs trust', () => {
    const setting = (value: 'index' | 'debian', from: 'default' | 'user' | 'env' | 'flag') => ({
      value,
      from,
    });
    expect(chooseSources(undefined, undefined, false)).toEqual({ sources: 'index', note: null });
    expect(chooseSources(setting('index', 'default'), 'debian', false).sources).toBe('debian');
    expect(chooseSources(setting('index', 'flag'), 'debian', false).sources).toBe('index');
    expect(chooseSources(setting('debian', 'env'), 'index', true).sources).toBe('debian');
    const untrusted = chooseSources(setting('debian', 'user'), 'index', false);
    expect(untrusted.sources).toBe('debian');
    expect(untrusted.note).toContain('ignored sources = "index" of .piper/sandbox.toml');
    expect(chooseSources(setting('debian', 'user'), 'index', true)).toEqual({ sources: 'index', note: null });
  });

  it('reaches the spec through prepareSpec, with the note when it is left out', () => {
    mkdirSync(join(repo, '.piper'));
    writeFileSync(join(repo, 'requirements.txt'), 'attrs\n');
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), 'sources = "index"\n');
    const prepared = prepareSpec({
      steps: stepCatalog(),
      repoRoot: repo,
      trustRecipe: false,
      strict: false,
      env: { PIP_CONFIG_FILE: '/dev/null' },
      sources: { value: 'debian', from: 'user' },
    });
    expect(prepared.spec.sources).toEqual({ setting: 'debian', used: 'debian', fallback: false });
    expect(prepared.notes.join('\n')).toContain('ignored sources = "index"');
  });
});

describe('the content keys', () => {
  const project = () => {
    const dir = mkdtempSync(join(scratch, 'k-'));
    cpSync(join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'), dir, { recursive: true });
    return dir;
  };
  const specOf = (dir: string, sources: 'index' | 'debian', pipEnv: NodeJS.ProcessEnv = {}): BuildSpec => {
    const plan = planEnvironment(dir);
    return makeBuildSpec({
      steps: stepCatalog(),
      repoRoot: dir,
      plan,
      base: { suite: plan.debian, recipe: '1111' },
      pip: pipSettings(
        plan,
        { PIP_CONFIG_FILE: '/dev/null', ...pipEnv },
        { trustRepoIndex: false, repoRoot: dir },
      ),
      setup: [],
      trustUrls: false,
      strict: false,
      sources,
    });
  };

  it('differ for an index build, a Debian build and a fallback, in both keys', () => {
    const dir = project();
    const index = specOf(dir, 'index');
    const debian = specOf(dir, 'debian');
    const fallback = fallbackSpec(index);
    expect(fallback.sources).toEqual({ setting: 'index', used: 'debian', fallback: true });
    for (const key of [declarationsKey, imageKey]) {
      const keys = [key(index), key(debian), key(fallback)];
      expect(new Set(keys).size).toBe(3);
    }
    expect([index, debian, fallback].map((s) => sourcesLabel(s.sources))).toEqual([
      'index',
      'debian',
      'debian-fallback',
    ]);
  });

  it('are the same for the same setting, and pip’s patience is not in them', () => {
    const dir = project();
    expect(imageKey(specOf(dir, 'index'))).toBe(imageKey(specOf(dir, 'index')));
    expect(imageKey(specOf(dir, 'index', { PIP_TIMEOUT: '2', PIP_RETRIES: '0' }))).toBe(
      imageKey(specOf(dir, 'index')),
    );
    // The default is index: a spec made without the setting is an index spec.
    const plan = planEnvironment(dir);
    const unset = makeBuildSpec({
      steps: stepCatalog(),
      repoRoot: dir,
      plan,
      base: { suite: plan.debian, recipe: '1111' },
      pip: pipSettings(plan, { PIP_CONFIG_FILE: '/dev/null' }, { trustRepoIndex: false, repoRoot: dir }),
      setup: [],
      trustUrls: false,
      strict: false,
    });
    expect(imageKey(unset)).toBe(imageKey(specOf(dir, 'index')));
  });
});

describe("pip's own patience", () => {
  const settings = (pipEnv: NodeJS.ProcessEnv) => {
    const dir = mkdtempSync(join(scratch, 'p-'));
    return pipSettings(
      planEnvironment(dir),
      { PIP_CONFIG_FILE: '/dev/null', ...pipEnv },
      {
        trustRepoIndex: false,
        repoRoot: dir,
      },
    );
  };

  it("is pip's default (15 s, 5 retries) unless you set PIP_TIMEOUT / PIP_RETRIES or pip.conf's", () => {
    expect(pipSourceEnv(settings({}), [])).toEqual(
      expect.arrayContaining(['PIP_TIMEOUT=15', 'PIP_RETRIES=5']),
    );
    expect(pipSourceEnv(settings({ PIP_TIMEOUT: '40', PIP_RETRIES: '1' }), [])).toEqual(
      expect.arrayContaining(['PIP_TIMEOUT=40', 'PIP_RETRIES=1']),
    );
    const conf = join(scratch, 'pip.conf');
    writeFileSync(conf, '[global]\ntimeout = 7\nretries = 2\n');
    const fromFile = settings({
      PIP_CONFIG_FILE: conf,
      HOME: scratch,
      XDG_CONFIG_DIRS: join(scratch, 'none'),
    });
    expect([fromFile.timeoutS, fromFile.retries]).toEqual([7, 2]);
    // A value pip would refuse is not passed on: pip's default instead.
    expect(settings({ PIP_TIMEOUT: 'soon', PIP_RETRIES: '-1' })).toMatchObject({ timeoutS: 15, retries: 5 });
  });

  it('no step waits 5 s with no retry: the download steps take pip’s from their environment', () => {
    const download = pipDownloadStep(['attrs'], [], new Redactor([]));
    expect(download.script).not.toMatch(/--timeout|--retries/);
    expect(buildDepsDownloadStep(['setuptools'], []).script).not.toMatch(/--timeout|--retries/);
    const probe = indexProbeStep(['PIP_TIMEOUT=15', 'PIP_RETRIES=5']);
    expect(probe.script).toContain('PIP_TIMEOUT');
    expect(probe.script).toContain('PIP_RETRIES');
    // Its time limit gives every try its whole timeout.
    expect(probe.timeoutS).toBeGreaterThanOrEqual(6 * 15);
    expect(
      indexProbeStep(['PIP_TIMEOUT=30', 'PIP_RETRIES=3', 'PIP_EXTRA_INDEX_URL=a b']).timeoutS,
    ).toBeGreaterThan(3 * 4 * 30);
  });
});

describe('what each source installs over', () => {
  it('debian keeps what the image meets; index puts the resolution whole into a new venv, or the requirements themselves onto one', () => {
    const debian = offlineInstallStep(['attrs'], ['/d']).script;
    expect(debian).not.toContain('--ignore-installed');
    const fresh = offlineInstallStep(['attrs'], ['/d'], 'fresh').script;
    expect(fresh).toContain("'--ignore-installed'");
    expect(fresh).not.toContain('--no-deps');
    const onto = offlineInstallStep(['attrs'], ['/d'], 'onto').script.split('\n');
    expect(onto.filter((l) => l.includes(' install '))).toHaveLength(2);
    expect(onto.find((l) => l.includes("'--no-deps'"))).toContain("'--ignore-installed'");
    expect(onto.join('\n')).toContain('piper-pip-report');
  });

  it("reads the venv's own distributions apart from Debian's", () => {
    const scan = [
      'piper-meta /opt/piper/venv/lib/python3.13/site-packages/attrs-25.1.0.dist-info/METADATA',
      'Name: attrs',
      'Version: 25.1.0',
      'piper-meta /usr/lib/python3/dist-packages/packaging-24.2.dist-info/METADATA',
      'Name: packaging',
      'Version: 24.2',
    ].join('\n');
    expect([...parseVersionsScan(scan)]).toEqual([
      ['attrs', '25.1.0'],
      ['packaging', '24.2'],
    ]);
    expect([...parseVersionsScan(scan, '/opt/piper/venv')]).toEqual([['attrs', '25.1.0']]);
  });
});

describe('the environment line', () => {
  it('says a fallback build in the text and TUI line', () => {
    const e = {
      type: 'environment' as const,
      status: 'built' as const,
      key: 'k',
      image: 'piper-env-x:1',
      seconds: 3,
      sources: [],
      shortfalls: [],
    };
    expect(environmentText(e)).not.toContain('fallback');
    expect(environmentText({ ...e, fallback: 'fallback build from Debian packages: ...' })).toContain(
      "fallback build from Debian's packages: the index did not answer",
    );
  });
});
