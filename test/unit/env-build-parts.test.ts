// The environment builder's pure parts: the allowance on what the project phase may leave, the
// read-back of the project's files, setuptools' finder mapping, nearest versions, pip's failure
// words, the redactor and the user's pip configuration.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFinderMapping } from '../../runtime/env/editable-finder.js';
import { moduleOfBuilt } from '../../runtime/env/native-finder.js';
import { nearestVersion } from '../../runtime/env/nearest-version.js';
import { readUserPipConfig } from '../../runtime/env/pip-config.js';
import { readPipFailure } from '../../runtime/env/pip-failure.js';
import { projectFiles } from '../../runtime/env/project-files.js';
import { checkProjectLayer } from '../../runtime/env/project-layer.js';
import { Redactor } from '../../runtime/env/secrets.js';

const SITE = '/opt/piper/venv/lib/python3.13/site-packages';
const where = { site: SITE, bin: '/opt/piper/venv/bin', project: 'tinycalc' };
const file = (name: string, text: string) => ({ name, type: 'file' as const, data: Buffer.from(text) });

describe('the project layer allowance', () => {
  it("keeps the project's install, drops the workspace and HOME, names everything else", () => {
    const check = checkProjectLayer(
      [
        { path: '/opt/piper', kind: 'changed' },
        { path: SITE, kind: 'changed' },
        { path: `${SITE}/tinycalc-0.3.1.dist-info`, kind: 'added' },
        { path: `${SITE}/tinycalc-0.3.1.dist-info/METADATA`, kind: 'added' },
        { path: `${SITE}/__editable__.tinycalc-0.3.1.pth`, kind: 'added' },
        { path: `${SITE}/__pycache__/x.pyc`, kind: 'added' },
        { path: '/opt/piper/venv/bin/tinycalc', kind: 'added' },
        { path: '/work/src/tinycalc/_x.cpython-313-x86_64-linux-gnu.so', kind: 'added' },
        { path: '/root/.cache/pip', kind: 'added' },
        { path: `${SITE}/other-1.0.dist-info`, kind: 'added' },
        { path: '/usr/local', kind: 'changed' },
        { path: '/usr/local/bin/shim', kind: 'added' },
        { path: '/usr/lib/python3/dist-packages/attr', kind: 'deleted' },
      ],
      where,
    );
    expect(check.keep).toEqual([
      '/opt/piper/venv/bin/tinycalc',
      `${SITE}/__editable__.tinycalc-0.3.1.pth`,
      `${SITE}/tinycalc-0.3.1.dist-info`,
    ]);
    expect(check.violations).toEqual([
      `added ${SITE}/other-1.0.dist-info`,
      'deleted /usr/lib/python3/dist-packages/attr',
      'added /usr/local/bin/shim',
    ]);
    expect(check.built).toEqual(['/work/src/tinycalc/_x.cpython-313-x86_64-linux-gnu.so']);
  });

  it('takes the one dist-info of a project whose name the plan could not read (setup.py only)', () => {
    const check = checkProjectLayer([{ path: `${SITE}/acme_widgets-0.9.dist-info`, kind: 'added' }], {
      ...where,
      project: null,
    });
    expect(check).toMatchObject({ keep: [`${SITE}/acme_widgets-0.9.dist-info`], violations: [] });
  });
});

describe("the project's files, read back", () => {
  it('rewrites .pth files, the finder and console scripts; refuses code where data belongs', () => {
    const finder = `MAPPING: dict[str, str] = {'flatpkg': '/work/flatpkg'}\nNAMESPACES: dict[str, list[str]] = {}\nimport os; os.system("evil")\n`;
    const read = new Map([
      [
        `${SITE}/tinycalc-0.3.1.dist-info`,
        [
          file(
            'tinycalc-0.3.1.dist-info/METADATA',
            'Metadata-Version: 2.1\nName: tinycalc\nVersion: 0.3.1\n\nbody',
          ),
          file(
            'tinycalc-0.3.1.dist-info/entry_points.txt',
            '[console_scripts]\ntinycalc = tinycalc.cli:main\n',
          ),
        ],
      ],
      [`${SITE}/__editable__.tinycalc-0.3.1.pth`, [file('__editable__.tinycalc-0.3.1.pth', '/work/src\n')]],
      [`${SITE}/__editable___flatpkg_1_finder.py`, [file('__editable___flatpkg_1_finder.py', finder)]],
      [`${SITE}/zz.pth`, [file('zz.pth', 'import os; os._exit(0)\n')]],
      ['/opt/piper/venv/bin/tinycalc', [file('tinycalc', '#!/bin/sh\nexit 0\n')]],
      ['/opt/piper/venv/bin/pytest', [file('pytest', '#!/bin/sh\nexit 0\n')]],
    ]);
    const out = projectFiles(read, where);
    expect(out.installed).toEqual({ name: 'tinycalc', version: '0.3.1' });
    const byPath = new Map(out.files.map((f) => [f.path, f.data.toString()]));
    expect(byPath.get(`${SITE}/__editable__.tinycalc-0.3.1.pth`)).toBe('/work/src\n');
    const regenerated = byPath.get(`${SITE}/__editable___flatpkg_1_finder.py`)!;
    expect(regenerated).toContain('MAPPING = {"flatpkg":"/work/flatpkg"}');
    expect(regenerated).not.toContain('evil');
    expect(byPath.get('/opt/piper/venv/bin/tinycalc')).toContain('from tinycalc.cli import main');
    expect(out.violations).toEqual([
      `${SITE}/zz.pth: line "import os; os._exit(0)" is neither a path in /work nor setuptools' finder import`,
      '/opt/piper/venv/bin/pytest: not a console script the project declares',
    ]);
  });

  it('refuses a finder mapping out of the workspace', () => {
    expect(readFinderMapping("MAPPING = {'x': '/usr/lib/x'}\n")).toMatch(/not a module in \/work/);
    expect(readFinderMapping("MAPPING = {'x': '/work/../etc'}\n")).toMatch(/not a module in \/work/);
    expect(readFinderMapping("MAPPING = {'a.b': \"/work/a\"}\nNAMESPACES = {'ns': ['/work/ns']}\n")).toEqual({
      mapping: { 'a.b': '/work/a' },
      namespaces: { ns: ['/work/ns'] },
    });
  });

  it('names a compiled module from its path under the import roots', () => {
    expect(moduleOfBuilt('/work/src/pkg/_x.cpython-313-x86_64-linux-gnu.so', ['/work/src', '/work'])).toBe(
      'pkg._x',
    );
    expect(moduleOfBuilt('/work/_top.abi3.so', ['/work/src', '/work'])).toBe('_top');
  });
});

describe('best effort', () => {
  it('chooses the nearest version a source has', () => {
    expect(nearestVersion('==8.4.2', ['7.4.4', '8.3.5', '8.4.0', '9.0.1'])).toBe('8.4.0');
    expect(nearestVersion('>9', ['8.3.5', '8.4.1'])).toBe('8.4.1');
    expect(nearestVersion('>=3.2.5', ['3.0.11', '3.1.2'])).toBe('3.1.2');
    expect(nearestVersion('==2.0', ['2.1rc1', '1.9'])).toBe('1.9');
    expect(nearestVersion('', ['1.0', '2.0'])).toBe('2.0');
    expect(nearestVersion('==1.0', [])).toBeNull();
  });

  it("reads pip's failure: a version list, nothing at all, or something else", () => {
    expect(
      readPipFailure(
        'ERROR: Could not find a version that satisfies the requirement pytest==8.4.2 (from versions: 7.0, 8.3.5)',
      ),
    ).toEqual({
      kind: 'not_found',
      requirement: 'pytest==8.4.2',
      name: 'pytest',
      versions: ['7.0', '8.3.5'],
    });
    expect(
      readPipFailure(
        'WARNING: Retrying ... NewConnectionError: Failed to establish a new connection: [Errno 111] Connection refused\nERROR: Could not find a version that satisfies the requirement x (from versions: none)',
      ).kind,
    ).toBe('unreachable');
    expect(readPipFailure('ERROR: ResolutionImpossible: conflicting dependencies')).toEqual({
      kind: 'other',
      line: 'ResolutionImpossible: conflicting dependencies',
    });
  });
});

describe('the redactor', () => {
  it('masks URL userinfo anywhere and each known secret, raw or percent-decoded', () => {
    const r = new Redactor([
      'https://ci:p%40ss-w0rd@127.0.0.1:9/simple/',
      'http://tok-abc123@127.0.0.1:8/links/',
    ]);
    expect(r.text('PIP_FIND_LINKS=http://tok-abc123@127.0.0.1:8/links/')).toBe(
      'PIP_FIND_LINKS=http://***@127.0.0.1:8/links/',
    );
    expect(r.text('a backend printed p@ss-w0rd and p%40ss-w0rd and tok-abc123')).toBe(
      'a backend printed *** and *** and ***',
    );
    expect(r.text('user ci stays')).toBe('user ci stays');
    expect(r.leaks('nothing here')).toBe(false);
  });
});

describe("the user's pip configuration", () => {
  it('reads the files as pip does, [install] over [global], variables over files, /dev/null for none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-pipconf-'));
    const conf = join(dir, 'pip.conf');
    writeFileSync(
      conf,
      '[global]\nindex-url = http://127.0.0.1:1/simple/\nfind-links = /a /b\n[install]\nindex-url = http://127.0.0.1:2/simple/\n',
    );
    const env = { HOME: dir, XDG_CONFIG_DIRS: join(dir, 'none'), PIP_CONFIG_FILE: conf };
    expect(readUserPipConfig(env)).toMatchObject({
      indexUrl: 'http://127.0.0.1:2/simple/',
      findLinks: ['/a', '/b'],
    });
    expect(
      readUserPipConfig({ ...env, PIP_INDEX_URL: 'http://127.0.0.1:3/simple/', PIP_FIND_LINKS: '' }),
    ).toMatchObject({
      indexUrl: 'http://127.0.0.1:3/simple/',
      findLinks: ['/a', '/b'],
    });
    expect(
      readUserPipConfig({ HOME: dir, XDG_CONFIG_DIRS: join(dir, 'none'), PIP_CONFIG_FILE: '/dev/null' })
        .indexUrl,
    ).toBeNull();
  });
});
