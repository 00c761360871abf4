// The indexes other tools name, as pip's: the user's uv settings (UV_DEFAULT_INDEX, UV_INDEX_URL,
// UV_INDEX, UV_EXTRA_INDEX_URL, uv.toml) beside pip's own; a repository's uv.toml / [tool.uv],
// Poetry and PDM sources only when the user trusts it (else one note); logins kept out of the
// spec and the keys; and pip's own patience from every place pip reads it.
import { stepCatalog } from '../../runtime/env/build/step-catalog.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { imageKey } from '../../runtime/env/choose/key.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { readUserIndexes } from '../../runtime/env/plan/indexes/user-indexes.js';
import { readUserPipConfig } from '../../runtime/env/plan/pip-config.js';
import { guardUserPipSecrets, pipSettings, pipSourceEnv } from '../../runtime/env/plan/pip-settings.js';
import { makeBuildSpec } from '../../runtime/env/spec/build-spec.js';
import { redactSpec } from '../../runtime/env/spec/spec-schema.js';
import { maskSecrets } from '../../runtime/text/output-guard.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-uv-indexes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let homes = 0;
/** A user with no pip.conf and no uv.toml but the ones a test writes: nothing of this machine's. */
function user(env: NodeJS.ProcessEnv = {}, uvToml?: string): NodeJS.ProcessEnv {
  const home = join(scratch, `home-${++homes}`);
  mkdirSync(join(home, '.config', 'uv'), { recursive: true });
  if (uvToml !== undefined) writeFileSync(join(home, '.config', 'uv', 'uv.toml'), uvToml);
  return { HOME: home, XDG_CONFIG_DIRS: join(home, 'none'), PIP_CONFIG_FILE: '/dev/null', ...env };
}

let repos = 0;
function repo(files: Record<string, string>): string {
  const dir = join(scratch, `repo-${++repos}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function settings(dir: string, env: NodeJS.ProcessEnv, trusted: boolean) {
  return pipSettings(planEnvironment(dir), env, { trustRepoIndex: trusted, repoRoot: dir });
}

const CORP = 'https://corp.example/simple/';
const MIRROR = 'https://mirror.example/simple/';

describe("the user's uv settings", () => {
  it('give the index when pip names none: UV_DEFAULT_INDEX over UV_INDEX_URL; UV_INDEX and UV_EXTRA_INDEX_URL are extras', () => {
    expect(readUserIndexes(user({ UV_INDEX_URL: MIRROR })).user.indexUrl).toBe(MIRROR);
    const { user: u, notes } = readUserIndexes(
      user({
        UV_DEFAULT_INDEX: CORP,
        UV_INDEX_URL: MIRROR,
        UV_INDEX: 'extra=https://extra.example/simple/ https://other.example/simple/',
        UV_EXTRA_INDEX_URL: 'https://legacy.example/simple/',
      }),
    );
    expect(u.indexUrl).toBe(CORP);
    expect(u.extraIndexUrls).toEqual([
      'https://extra.example/simple/',
      'https://other.example/simple/',
      'https://legacy.example/simple/',
    ]);
    expect(u.from).toEqual(
      expect.arrayContaining(['UV_DEFAULT_INDEX', 'UV_INDEX extra', 'UV_EXTRA_INDEX_URL']),
    );
    expect(notes.join('\n')).toContain(`${MIRROR} not used as the index: ${CORP} came first`);
  });

  it("come after pip's: pip's index stays the index, uv's different default is said and left out", () => {
    const { user: u, notes } = readUserIndexes(
      user({ PIP_INDEX_URL: MIRROR, UV_DEFAULT_INDEX: CORP, UV_INDEX: 'https://extra.example/simple/' }),
    );
    expect(u.indexUrl).toBe(MIRROR);
    expect(u.extraIndexUrls).toEqual(['https://extra.example/simple/']);
    expect(notes.join('\n')).toMatch(
      /uv's index https:\/\/corp\.example\/simple\/ \(UV_DEFAULT_INDEX\) not used/,
    );
  });

  it("read the user's uv.toml: [[index]] default, flat and explicit, the older keys; variables over it", () => {
    const toml = [
      'extra-index-url = ["https://more.example/simple/"]',
      '[[index]]',
      'name = "corp"',
      `url = "${CORP}"`,
      'default = true',
      '[[index]]',
      'name = "pinned"',
      'url = "https://pinned.example/simple/"',
      'explicit = true',
      '[[index]]',
      'name = "flat"',
      'url = "https://flat.example/wheels/"',
      'format = "flat"',
    ].join('\n');
    const { user: u, notes } = readUserIndexes(user({}, toml));
    expect(u.indexUrl).toBe(CORP);
    expect(u.extraIndexUrls).toEqual(['https://more.example/simple/']);
    expect(u.findLinks).toEqual(['https://flat.example/wheels/']);
    expect(notes.join('\n')).toMatch(/\[\[index\]\] pinned is explicit .*not used/);
    expect(readUserIndexes(user({ UV_DEFAULT_INDEX: MIRROR }, toml)).user.indexUrl).toBe(MIRROR);
    // UV_NO_CONFIG reads no file; UV_CONFIG_FILE reads that one instead.
    expect(readUserIndexes(user({ UV_NO_CONFIG: '1' }, toml)).user.indexUrl).toBeNull();
    const other = join(scratch, 'other-uv.toml');
    writeFileSync(other, `index-url = "${MIRROR}"\n`);
    expect(readUserIndexes(user({ UV_CONFIG_FILE: other }, toml)).user.indexUrl).toBe(MIRROR);
    // A broken file costs its indexes, with a note.
    const broken = readUserIndexes(user({}, 'index-url = '));
    expect(broken.user.indexUrl).toBeNull();
    expect(broken.notes.join('\n')).toContain('is not valid TOML');
  });

  it("put a named index's uv login into its URL for pip, and keep it out of the spec, the keys and the output", () => {
    const env = user({
      UV_INDEX: `corp=${CORP}`,
      UV_INDEX_CORP_USERNAME: 'me',
      UV_INDEX_CORP_PASSWORD: 's3cret-uv-token',
    });
    const dir = repo({ 'requirements.txt': 'attrs\n' });
    const pip = settings(dir, env, false);
    expect(pip.extraIndexUrls).toEqual(['https://me:s3cret-uv-token@corp.example/simple/']);
    expect(pipSourceEnv(pip, [])).toContain(
      'PIP_EXTRA_INDEX_URL=https://me:s3cret-uv-token@corp.example/simple/',
    );
    expect(pip.redactor.text(`asked ${pip.extraIndexUrls[0]}`)).not.toContain('s3cret-uv-token');
    const spec = makeBuildSpec({
      steps: stepCatalog(),
      repoRoot: dir,
      plan: planEnvironment(dir),
      base: { suite: 'trixie', recipe: 'r' },
      pip,
      setup: [],
      trustUrls: false,
      strict: false,
    });
    expect(JSON.stringify(redactSpec(spec))).not.toContain('s3cret-uv-token');
    // A new password is the same index: the same key.
    const again = settings(dir, { ...env, UV_INDEX_CORP_PASSWORD: 'another' }, false);
    expect(imageKey({ ...spec, pip: { ...spec.pip, extraIndexUrls: again.extraIndexUrls } })).toBe(
      imageKey(spec),
    );
    guardUserPipSecrets(env);
    expect(maskSecrets('token s3cret-uv-token')).not.toContain('s3cret-uv-token');
  });
});

describe("a repository's uv, Poetry and PDM indexes", () => {
  const uvRepo = () =>
    repo({
      'requirements.txt': 'attrs\n',
      'uv.toml': `[[index]]\nname = "corp"\nurl = "${CORP}"\ndefault = true\n`,
      // uv reads the project's uv.toml over its [tool.uv].
      'pyproject.toml': '[tool.uv]\nindex-url = "https://ignored.example/simple/"\n',
    });

  it('are used when you trust the repository, replacing the default index as the tool would', () => {
    const pip = settings(uvRepo(), user(), true);
    expect(pip.indexUrl).toBe(CORP);
    expect(pip.defaultIndex).toBe(false);
    expect(pip.from).toContain('uv.toml [[index]] corp');
    expect(planEnvironment(uvRepo()).inputs.map((i) => i.path)).toContain('uv.toml');
  });

  it('are ignored with one note when you do not, your own index staying', () => {
    const pip = settings(uvRepo(), user({ PIP_INDEX_URL: MIRROR }), false);
    expect(pip.indexUrl).toBe(MIRROR);
    const said = pip.notes.filter((n) => n.includes('the repository is not trusted'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(CORP);
  });

  it('[tool.uv] when there is no uv.toml: [[tool.uv.index]] default, others extra', () => {
    const dir = repo({
      'pyproject.toml': [
        '[project]',
        'name = "p"',
        '[[tool.uv.index]]',
        'name = "extra"',
        'url = "https://extra.example/simple/"',
        '[[tool.uv.index]]',
        'name = "corp"',
        `url = "${CORP}"`,
        'default = true',
      ].join('\n'),
    });
    const pip = settings(dir, user(), true);
    expect([pip.indexUrl, pip.extraIndexUrls]).toEqual([CORP, ['https://extra.example/simple/']]);
    expect(pip.from).toContain('pyproject.toml [[tool.uv.index]] corp');
  });

  it("Poetry's sources by priority: primary the index, supplemental extra, explicit said; PyPI named keeps the default", () => {
    const source = (name: string, url: string | null, priority?: string) =>
      `[[tool.poetry.source]]\nname = "${name}"\n${url ? `url = "${url}"\n` : ''}${priority ? `priority = "${priority}"\n` : ''}`;
    const dir = repo({
      'pyproject.toml':
        source('corp', CORP) +
        source('sup', 'https://sup.example/simple/', 'supplemental') +
        source('only-some', 'https://explicit.example/simple/', 'explicit'),
    });
    const pip = settings(dir, user(), true);
    expect([pip.indexUrl, pip.extraIndexUrls]).toEqual([CORP, ['https://sup.example/simple/']]);
    expect(planEnvironment(dir).decisions.join('\n')).toMatch(/poetry\.source\]\] only-some is explicit/);
    const withPypi = repo({
      'pyproject.toml': source('PyPI', null, 'primary') + source('corp', CORP, 'primary'),
    });
    const kept = settings(withPypi, user(), true);
    expect([kept.indexUrl, kept.extraIndexUrls, kept.defaultIndex]).toEqual([null, [CORP], true]);
  });

  it("PDM's sources: pypi replaces the default, others extra, find_links flat, a ${VAR} URL said and left out", () => {
    const dir = repo({
      'pyproject.toml': [
        '[[tool.pdm.source]]',
        'name = "pypi"',
        `url = "${CORP}"`,
        '[[tool.pdm.source]]',
        'name = "more"',
        'url = "https://more.example/simple/"',
        '[[tool.pdm.source]]',
        'name = "wheels"',
        'url = "https://wheels.example/links/"',
        'type = "find_links"',
        '[[tool.pdm.source]]',
        'name = "login"',
        'url = "https://${USER}:${TOKEN}@private.example/simple/"',
      ].join('\n'),
    });
    const pip = settings(dir, user(), true);
    expect([pip.indexUrl, pip.extraIndexUrls, pip.findLinkUrls]).toEqual([
      CORP,
      ['https://more.example/simple/'],
      ['https://wheels.example/links/'],
    ]);
    expect(planEnvironment(dir).decisions.join('\n')).toContain('login: its URL names environment variables');
    const untrusted = settings(dir, user(), false);
    expect([untrusted.indexUrl, untrusted.extraIndexUrls, untrusted.findLinkUrls]).toEqual([null, [], []]);
  });

  it('come after the recipe and the requirements files: their index stays the index', () => {
    const dir = repo({
      'requirements.txt': `--index-url ${MIRROR}\nattrs\n`,
      'uv.toml': `index-url = "${CORP}"\n`,
    });
    const plan = planEnvironment(dir);
    expect(plan.pip.indexUrl).toBe(MIRROR);
    expect(plan.decisions.join('\n')).toContain(`uv.toml index-url: ${CORP} not used as the index`);
  });
});

describe("pip's own patience, from every place pip reads it", () => {
  it("PIP_DEFAULT_TIMEOUT (pip's alias of PIP_TIMEOUT, below it); pip.conf [download] over [global], [install] over both", () => {
    expect(readUserPipConfig(user({ PIP_DEFAULT_TIMEOUT: '180' })).timeout).toBe('180');
    expect(readUserPipConfig(user({ PIP_DEFAULT_TIMEOUT: '180', PIP_TIMEOUT: '9' })).timeout).toBe('9');
    const conf = join(scratch, 'pip.conf');
    writeFileSync(conf, '[global]\ntimeout = 7\nretries = 2\n[download]\ntimeout = 30\nretries = 4\n');
    const fromFile = readUserPipConfig(user({ PIP_CONFIG_FILE: conf }));
    expect([fromFile.timeout, fromFile.retries]).toEqual(['30', '4']);
    writeFileSync(conf, '[download]\ntimeout = 30\n[install]\ndefault-timeout = 45\n');
    expect(readUserPipConfig(user({ PIP_CONFIG_FILE: conf })).timeout).toBe('45');
    const dir = repo({ 'requirements.txt': 'attrs\n' });
    expect(pipSourceEnv(settings(dir, user({ PIP_CONFIG_FILE: conf, PIP_RETRIES: '1' }), false), [])).toEqual(
      expect.arrayContaining(['PIP_TIMEOUT=45', 'PIP_RETRIES=1']),
    );
  });
});
