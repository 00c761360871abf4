// The environment builder's pure parts: the sort of what the project phase left, the project's
// files piper writes from it, .pth lines as Python reads them, setuptools' finder mapping, nearest versions, pip's failure
// words, the redactor and the user's pip configuration.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFinderMapping } from '../../runtime/env/build/project/editable-finder.js';
import { moduleOfBuilt } from '../../runtime/env/build/project/native-finder.js';
import { nearestVersion } from '../../runtime/env/build/deps/nearest-version.js';
import { readUserPipConfig } from '../../runtime/env/plan/pip-config.js';
import { readPipFailure } from '../../runtime/env/build/pip-failure.js';
import { projectFiles } from '../../runtime/env/build/project/project-files.js';
import { sortProjectLayer } from '../../runtime/env/build/project/project-layer.js';
import { pthPathProblem, pthText, pythonLines } from '../../runtime/env/build/project/pth-lines.js';
import { isSystemCommand } from '../../runtime/env/build/project/system-commands.js';
import { generatedCandidates } from '../../runtime/env/build/project/generated-files.js';
import { Redactor } from '../../runtime/env/plan/secrets.js';

const SITE = '/opt/piper/venv/lib/python3.13/site-packages';
const where = { site: SITE, bin: '/opt/piper/venv/bin', project: 'tinycalc' };
const file = (name: string, text: string) => ({ name, type: 'file' as const, data: Buffer.from(text) });
const dir = (name: string) => ({ name, type: 'directory' as const, data: Buffer.alloc(0) });

describe('the project layer, sorted', () => {
  it("reads the project's install back as data, carries generated files, names everything else", () => {
    const sorted = sortProjectLayer(
      [
        { path: '/opt/piper', kind: 'changed' },
        { path: SITE, kind: 'changed' },
        { path: `${SITE}/tinycalc-0.3.1.dist-info`, kind: 'added' },
        { path: `${SITE}/tinycalc-0.3.1.dist-info/METADATA`, kind: 'added' },
        { path: `${SITE}/__editable__.tinycalc-0.3.1.pth`, kind: 'added' },
        { path: `${SITE}/__pycache__/x.pyc`, kind: 'added' },
        { path: `${SITE}/.gitignore`, kind: 'added' },
        { path: '/opt/piper/venv/bin/tinycalc', kind: 'added' },
        { path: '/work/src/tinycalc/_x.cpython-313-x86_64-linux-gnu.so', kind: 'added' },
        { path: '/work/src/tinycalc/_version.py', kind: 'added' },
        { path: '/work/src/tinycalc/core.py', kind: 'changed' },
        { path: '/root/.cache/pip', kind: 'added' },
        { path: `${SITE}/other-1.0.dist-info`, kind: 'added' },
        { path: '/usr/local', kind: 'changed' },
        { path: '/usr/local/bin/shim', kind: 'added' },
        { path: '/usr/lib/python3/dist-packages/attr', kind: 'deleted' },
      ],
      { ...where, inSnapshot: new Set(['/work/src/tinycalc/core.py']) },
    );
    expect(sorted.read).toEqual([
      `${SITE}/__editable__.tinycalc-0.3.1.pth`,
      `${SITE}/tinycalc-0.3.1.dist-info`,
    ]);
    expect(sorted.scripts).toEqual(['tinycalc']);
    expect(sorted.generated).toEqual(['/work/src/tinycalc/_version.py']);
    expect(sorted.built).toEqual(['/work/src/tinycalc/_x.cpython-313-x86_64-linux-gnu.so']);
    expect(sorted.leftOut).toEqual([
      `added ${SITE}/.gitignore`,
      `added ${SITE}/other-1.0.dist-info`,
      'deleted /usr/lib/python3/dist-packages/attr',
      'added /usr/local/bin/shim',
    ]);
  });

  it('takes the one dist-info of a project whose name the plan could not read (setup.py only)', () => {
    const sorted = sortProjectLayer([{ path: `${SITE}/acme_widgets-0.9.dist-info`, kind: 'added' }], {
      ...where,
      project: null,
      inSnapshot: new Set(),
    });
    expect(sorted).toMatchObject({ read: [`${SITE}/acme_widgets-0.9.dist-info`], leftOut: [] });
  });
});

describe("the project's files, written by piper", () => {
  const given = {
    ...where,
    scripts: ['tinycalc', 'pytest', 'sh'],
    reserved: new Set(['ls']),
    dirs: new Set(['/work', '/work/src', '/work/src/tinycalc']),
  };
  it('rebuilds the dist-info, the finder and console scripts; keeps checked .pth paths only', () => {
    const finder = `MAPPING: dict[str, str] = {'flatpkg': '/work/flatpkg'}\nNAMESPACES: dict[str, list[str]] = {}\nimport os; os.system("evil")\n`;
    const read = new Map([
      [
        `${SITE}/tinycalc-0.3.1.dist-info`,
        [
          dir('tinycalc-0.3.1.dist-info'),
          file(
            'tinycalc-0.3.1.dist-info/METADATA',
            'Metadata-Version: 2.1\nName: tinycalc\nVersion: 0.3.1\nRequires-Dist: attrs>=22\n\nbody',
          ),
          file(
            'tinycalc-0.3.1.dist-info/entry_points.txt',
            '[console_scripts]\ntinycalc = tinycalc.cli:main\nsh = tinycalc.cli:main\nls = tinycalc.cli:main\nbad = os; os.system\n[pytest11]\ntc = tinycalc.plugin\n',
          ),
          file('tinycalc-0.3.1.dist-info/RECORD', 'anything'),
          file('tinycalc-0.3.1.dist-info/evil.pth', 'import os'),
        ],
      ],
      [`${SITE}/__editable__.tinycalc-0.3.1.pth`, [file('__editable__.tinycalc-0.3.1.pth', '/work/src\n')]],
      [`${SITE}/__editable___flatpkg_1_finder.py`, [file('__editable___flatpkg_1_finder.py', finder)]],
      [
        `${SITE}/finder.pth`,
        [
          file(
            'finder.pth',
            'import __editable___flatpkg_1_finder; __editable___flatpkg_1_finder.install()\n',
          ),
        ],
      ],
      [`${SITE}/zz.pth`, [file('zz.pth', 'import os; os._exit(0)\n')]],
    ]);
    const out = projectFiles(read, given);
    expect(out.installed).toEqual({ name: 'tinycalc', version: '0.3.1' });
    const byPath = new Map(out.files.map((f) => [f.path, f.data.toString()]));
    const info = `${SITE}/tinycalc-0.3.1.dist-info`;
    expect(byPath.get(`${info}/METADATA`)).toContain('Requires-Dist: attrs>=22');
    expect(byPath.get(`${info}/entry_points.txt`)).toBe(
      '[console_scripts]\ntinycalc = tinycalc.cli:main\nsh = tinycalc.cli:main\nls = tinycalc.cli:main\n\n[pytest11]\ntc = tinycalc.plugin\n',
    );
    expect(byPath.get(`${info}/RECORD`)).toContain('tinycalc-0.3.1.dist-info/METADATA,sha256=');
    expect(byPath.has(`${info}/evil.pth`)).toBe(false);
    expect(out.roots).toEqual(['/work/src']);
    expect(out.imports).toEqual([
      'import __editable___flatpkg_1_finder; __editable___flatpkg_1_finder.install()',
    ]);
    const regenerated = byPath.get(`${SITE}/__editable___flatpkg_1_finder.py`)!;
    expect(regenerated).toContain('MAPPING = {"flatpkg":"/work/flatpkg"}');
    expect(regenerated).not.toContain('evil');
    expect(byPath.get('/opt/piper/venv/bin/tinycalc')).toContain('from tinycalc.cli import main');
    expect([...byPath.keys()].filter((p) => p.startsWith('/opt/piper/venv/bin/'))).toEqual([
      '/opt/piper/venv/bin/tinycalc',
    ]);
    expect(out.leftOut).toEqual([
      'entry point "bad = os; os.system"',
      'console script sh (named like a system command)',
      'console script ls (named like a system command)',
      `${SITE}/zz.pth (line 1 is an import line: site.py executes it)`,
      '/opt/piper/venv/bin/pytest (not a console script piper wrote)',
      '/opt/piper/venv/bin/sh (not a console script piper wrote)',
    ]);
  });

  it.each([
    ['\r', '/work/src\rimport os; os._exit(0)\n'],
    ['\f', '/work/src\fimport os; os._exit(0)\n'],
    ['\x1c', '/work/src\x1cimport os; os._exit(0)\n'],
    ['\u2028', '/work/src\u2028import os\n'],
  ])('leaves out a .pth whose line holds %j, as Python splits it', (_, text) => {
    const out = projectFiles(new Map([[`${SITE}/x.pth`, [file('x.pth', text)]]]), { ...given, scripts: [] });
    expect(out.roots).toEqual([]);
    expect(out.leftOut).toEqual([`${SITE}/x.pth (line 2 is an import line: site.py executes it)`]);
  });
});

describe('.pth lines as Python reads them', () => {
  it('splits as str.splitlines and refuses what site.py would execute or misread', () => {
    expect(pythonLines('a\r\nb\rc\x1dd\x85e\n')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pthPathProblem('/work/src')).toBeNull();
    expect(pthPathProblem('/work/src\vx')).toMatch(/line end/);
    expect(pthPathProblem('import\tos')).toMatch(/import line/);
    expect(pthPathProblem('/work/../etc')).toMatch(/normalized/);
    expect(pthPathProblem('/usr/lib')).toMatch(/not in the workspace/);
    expect(pthPathProblem(' /work')).toMatch(/white space/);
    expect(() => pthText(['/work/a\rimport os'], [])).toThrow();
    expect(pthText(['/work/src', '/work/src'], ['import m; m.install()'])).toBe(
      '/work/src\nimport m; m.install()\n',
    );
  });

  it('never lets a console script take a system command name', () => {
    for (const name of [
      'sh',
      'bash',
      'env',
      'python',
      'python3.13',
      'pip3',
      'pytest',
      'py.test',
      'coverage',
      'ls',
    ])
      expect(isSystemCommand(name, new Set()), name).toBe(true);
    expect(isSystemCommand('tinycalc', new Set())).toBe(false);
    expect(isSystemCommand('jq', new Set(['jq']))).toBe(true);
  });
});

describe('files the build generated in the checkout', () => {
  it('carries leaves, not by-products', () => {
    expect(
      generatedCandidates([
        '/work/src/pkg/_version.py',
        '/work/src/pkg/gen',
        '/work/src/pkg/gen/table.py',
        '/work/build/lib/pkg/x.py',
        '/work/src/pkg.egg-info/PKG-INFO',
        '/work/setup.py',
      ]),
    ).toEqual(['/work/src/pkg/_version.py', '/work/src/pkg/gen/table.py']);
  });
});

describe('compiled modules', () => {
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
    // pip 20.3 (Debian bullseye's) names no versions; a parent is still not a version list.
    const old = readPipFailure(
      'ERROR: Could not find a version that satisfies the requirement atomicwrites==1.4.1\nERROR: No matching distribution found for atomicwrites==1.4.1',
    );
    expect(old).toEqual({
      kind: 'not_found',
      requirement: 'atomicwrites==1.4.1',
      name: 'atomicwrites',
      versions: [],
    });
    expect(
      readPipFailure(
        'ERROR: Could not find a version that satisfies the requirement py>=1.5 (from pytest==4.4.2)',
      ),
    ).toEqual({ kind: 'not_found', requirement: 'py>=1.5', name: 'py', versions: [] });
    expect(
      readPipFailure(
        'ERROR: Could not find a version that satisfies the requirement py>=1.5 (from pytest) (from versions: 1.4.0)',
      ),
    ).toMatchObject({ requirement: 'py>=1.5', versions: ['1.4.0'] });
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
