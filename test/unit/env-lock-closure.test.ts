// A lockfile's closure for the sandbox's Python, in each format as its tool writes it: the packages
// whose markers hold, reached from the project (uv.lock), in the groups a test run needs
// (poetry.lock, pdm.lock, pylock.toml), each with its locked hashes; a lock pip cannot install by
// hash (no hashes, a VCS source) only narrows, and says why. The build's steps: the hashed lines
// pip gets, and pip's refusal of a file that does not match read back as the package it names.
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import {
  hashMismatches,
  lockedRequirements,
  reportHashes,
} from '../../runtime/env/build/locked/locked-steps.js';
import { planRepo } from '../helpers/env-plan-repo.js';

const h = (c: string) => c.repeat(64);

const PYPROJECT = [
  '[project]',
  'name = "app"',
  'version = "0.1.0"',
  'requires-python = ">=3.9"',
  'dependencies = ["idna>=3", "colorama; sys_platform == \'win32\'"]',
  '[dependency-groups]',
  'dev = ["pytest>=8"]',
  'docs = ["sphinx"]',
  '',
].join('\n');

const UV_LOCK = `version = 1
revision = 2
requires-python = ">=3.9"
resolution-markers = [
    "python_full_version >= '3.12'",
    "python_full_version < '3.12'",
]

[[package]]
name = "app"
version = "0.1.0"
source = { virtual = "." }
dependencies = [
    { name = "colorama", marker = "sys_platform == 'win32'" },
    { name = "idna" },
]

[package.dev-dependencies]
dev = [
    { name = "pytest" },
]
docs = [
    { name = "sphinx" },
]

[package.metadata]
requires-dist = [
    { name = "colorama", marker = "sys_platform == 'win32'" },
    { name = "idna", specifier = ">=3" },
]

[[package]]
name = "colorama"
version = "0.4.6"
source = { registry = "https://index.example/simple" }
sdist = { url = "https://index.example/colorama-0.4.6.tar.gz", hash = "sha256:${h('1')}", size = 27697 }
wheels = [
    { url = "https://index.example/colorama-0.4.6-py2.py3-none-any.whl", hash = "sha256:${h('2')}", size = 25335 },
]

[[package]]
name = "exceptiongroup"
version = "1.2.2"
source = { registry = "https://index.example/simple" }
wheels = [
    { url = "https://index.example/exceptiongroup-1.2.2-py3-none-any.whl", hash = "sha256:${h('3')}", size = 16453 },
]

[[package]]
name = "idna"
version = "3.10"
source = { registry = "https://index.example/simple" }
sdist = { url = "https://index.example/idna-3.10.tar.gz", hash = "sha256:${h('4')}", size = 190490 }
wheels = [
    { url = "https://index.example/idna-3.10-py3-none-any.whl", hash = "sha256:${h('5')}", size = 70442 },
]

[[package]]
name = "numpy"
version = "2.0.2"
source = { registry = "https://index.example/simple" }
resolution-markers = [
    "python_full_version < '3.12'",
]
wheels = [
    { url = "https://index.example/numpy-2.0.2-cp311-cp311-manylinux_2_17_x86_64.whl", hash = "sha256:${h('6')}", size = 1 },
]

[[package]]
name = "numpy"
version = "2.2.4"
source = { registry = "https://index.example/simple" }
resolution-markers = [
    "python_full_version >= '3.12'",
]
wheels = [
    { url = "https://index.example/numpy-2.2.4-cp313-cp313-manylinux_2_17_x86_64.whl", hash = "sha256:${h('7')}", size = 1 },
]

[[package]]
name = "pytest"
version = "8.3.5"
source = { registry = "https://index.example/simple" }
dependencies = [
    { name = "colorama", marker = "sys_platform == 'win32'" },
    { name = "exceptiongroup", marker = "python_full_version < '3.11'" },
    { name = "numpy", version = "2.0.2", source = { registry = "https://index.example/simple" }, marker = "python_full_version < '3.12'" },
    { name = "numpy", version = "2.2.4", source = { registry = "https://index.example/simple" }, marker = "python_full_version >= '3.12'" },
]
wheels = [
    { url = "https://index.example/pytest-8.3.5-py3-none-any.whl", hash = "sha256:${h('8')}", size = 343634 },
]

[[package]]
name = "sphinx"
version = "7.4.7"
source = { registry = "https://index.example/simple" }
wheels = [
    { url = "https://index.example/sphinx-7.4.7-py3-none-any.whl", hash = "sha256:${h('9')}", size = 1 },
]
`;

const closure = (files: Record<string, string>, python?: '3.13' | '3.11') =>
  planEnvironment(planRepo(files), python ? { python } : {});
const versions = (plan: ReturnType<typeof closure>) =>
  Object.fromEntries((plan.locked?.packages ?? []).map((p) => [p.name, p.version]));

describe('uv.lock', () => {
  it("walks from the project through its dependencies and dev group, markers evaluated for the sandbox's Python", () => {
    const plan = closure({ 'pyproject.toml': PYPROJECT, 'uv.lock': UV_LOCK });
    // Not colorama (win32), exceptiongroup (< 3.11), sphinx (the docs group) nor the project itself.
    expect(versions(plan)).toEqual({ idna: '3.10', numpy: '2.2.4', pytest: '8.3.5' });
    expect(plan.locked?.from).toBe('uv.lock');
    expect(plan.locked?.packages.find((p) => p.name === 'idna')?.hashes).toEqual([h('4'), h('5')]);
    expect(plan.decisions).toContain(
      'uv.lock: 3 locked package(s) for Python 3.13 installed as locked (--no-deps --require-hashes); 4 locked package(s) left out (markers for Python 3.13, groups, extras)',
    );
    // A dynamic version: uv writes the project's own package without one.
    const dynamic = UV_LOCK.replace('name = "app"\nversion = "0.1.0"\n', 'name = "app"\n');
    expect(versions(closure({ 'pyproject.toml': PYPROJECT, 'uv.lock': dynamic }))).toEqual(versions(plan));
    const old = closure({ 'pyproject.toml': PYPROJECT, 'uv.lock': UV_LOCK }, '3.11');
    expect(versions(old)).toEqual({ idna: '3.10', numpy: '2.0.2', pytest: '8.3.5' });
  });

  it('only narrows when a package has no hash or comes from git, and says so', () => {
    const git = UV_LOCK.replace(
      'name = "idna"\nversion = "3.10"\nsource = { registry = "https://index.example/simple" }',
      'name = "idna"\nversion = "3.10"\nsource = { git = "https://git.example/idna?rev=v3.10#abc" }',
    );
    const plan = closure({ 'pyproject.toml': PYPROJECT, 'uv.lock': git });
    expect(plan.locked).toBeUndefined();
    expect(plan.decisions).toContain(
      'uv.lock: not installed as locked (idna comes from a git source); pip resolves the requirements, narrowed to the locked versions',
    );
    expect(plan.requirements.find((r) => r.normalized === 'idna')?.line).toBe('idna==3.10,>=3');
  });
});

const POETRY_21 = `# This file is automatically @generated by Poetry 2.1.1 and should not be changed by hand.

[[package]]
name = "colorama"
version = "0.4.6"
description = "Cross-platform colored terminal text."
optional = false
python-versions = "!=3.0.*,!=3.1.*,!=3.2.*,!=3.3.*,!=3.4.*,!=3.5.*,!=3.6.*,>=2.7"
groups = ["test"]
markers = "sys_platform == \\"win32\\""
files = [
    {file = "colorama-0.4.6-py2.py3-none-any.whl", hash = "sha256:${h('a')}"},
    {file = "colorama-0.4.6.tar.gz", hash = "sha256:${h('b')}"},
]

[[package]]
name = "iniconfig"
version = "2.1.0"
description = "brain-dead simple config-ini parsing"
optional = false
python-versions = ">=3.8"
groups = ["test"]
files = [
    {file = "iniconfig-2.1.0-py3-none-any.whl", hash = "sha256:${h('c')}"},
]

[[package]]
name = "mkdocs"
version = "1.6.1"
description = "Project documentation with Markdown."
optional = false
python-versions = ">=3.8"
groups = ["docs"]
files = [
    {file = "mkdocs-1.6.1-py3-none-any.whl", hash = "sha256:${h('d')}"},
]

[[package]]
name = "tomli"
version = "2.2.1"
description = "A lil' TOML parser"
optional = false
python-versions = ">=3.8"
groups = ["main", "test"]
markers = {main = "python_version < \\"3.11\\"", test = "python_full_version <= \\"3.11.0a6\\""}
files = [
    {file = "tomli-2.2.1-py3-none-any.whl", hash = "sha256:${h('e')}"},
]

[[package]]
name = "urllib3"
version = "2.3.0"
description = "HTTP library"
optional = false
python-versions = ">=3.9"
groups = ["main"]
files = [
    {file = "urllib3-2.3.0-py3-none-any.whl", hash = "sha256:${h('f')}"},
]

[metadata]
lock-version = "2.1"
python-versions = ">=3.9"
content-hash = "${h('0')}"
`;

const POETRY_1 = `[[package]]
name = "attrs"
version = "23.1.0"
description = "Classes Without Boilerplate"
category = "main"
optional = false
python-versions = ">=3.7"

[package.dependencies]
importlib-metadata = {version = "*", markers = "python_version < \\"3.8\\""}

[package.extras]
tests = ["zope-interface"]

[[package]]
name = "importlib-metadata"
version = "6.7.0"
description = "Read metadata from Python packages"
category = "main"
optional = false
python-versions = ">=3.7"

[[package]]
name = "black"
version = "23.3.0"
description = "The uncompromising code formatter."
category = "dev"
optional = false
python-versions = ">=3.7"

[metadata]
lock-version = "1.1"
python-versions = "^3.8"
content-hash = "${h('0')}"

[metadata.files]
attrs = [
    {file = "attrs-23.1.0-py3-none-any.whl", hash = "sha256:${h('1')}"},
]
importlib-metadata = [
    {file = "importlib_metadata-6.7.0-py3-none-any.whl", hash = "sha256:${h('2')}"},
]
black = [
    {file = "black-23.3.0-py3-none-any.whl", hash = "sha256:${h('3')}"},
]
`;

const POETRY_PYPROJECT =
  '[tool.poetry]\nname = "p"\nversion = "1"\n[tool.poetry.dependencies]\npython = "^3.9"\nattrs = "*"\n';

describe('poetry.lock', () => {
  it('lock 2.1: the packages of the main and test groups whose markers hold', () => {
    const plan = closure({ 'pyproject.toml': POETRY_PYPROJECT, 'poetry.lock': POETRY_21 });
    // Not colorama (win32), mkdocs (docs), tomli (< 3.11 for main, 3.11.0a6 for test).
    expect(versions(plan)).toEqual({ iniconfig: '2.1.0', urllib3: '2.3.0' });
  });

  it('lock 1.x: [metadata.files] hashes, the category, and the dependency markers walked from the roots', () => {
    const plan = closure({ 'pyproject.toml': POETRY_PYPROJECT, 'poetry.lock': POETRY_1 });
    // black is dev (a test run's group); importlib-metadata only below 3.8.
    expect(versions(plan)).toEqual({ attrs: '23.1.0', black: '23.3.0' });
    expect(plan.locked?.packages.find((p) => p.name === 'attrs')?.hashes).toEqual([h('1')]);
  });
});

const PDM_LOCK = `# This file is @generated by PDM.
# It is not intended for manual editing.

[metadata]
groups = ["default", "test", "docs"]
strategy = ["inherit_metadata"]
lock_version = "4.5.0"
content_hash = "sha256:${h('0')}"

[[metadata.targets]]
requires_python = ">=3.9"

[[package]]
name = "exceptiongroup"
version = "1.2.2"
requires_python = ">=3.7"
summary = "Backport of PEP 654 (exception groups)"
groups = ["test"]
marker = "python_version < \\"3.11\\""
files = [
    {file = "exceptiongroup-1.2.2-py3-none-any.whl", hash = "sha256:${h('1')}"},
]

[[package]]
name = "mkdocs"
version = "1.6.1"
requires_python = ">=3.8"
summary = "Project documentation with Markdown."
groups = ["docs"]
files = [
    {file = "mkdocs-1.6.1-py3-none-any.whl", hash = "sha256:${h('2')}"},
]

[[package]]
name = "pytest"
version = "8.3.5"
requires_python = ">=3.8"
summary = "pytest: simple powerful testing with Python"
groups = ["test"]
dependencies = [
    "colorama; sys_platform == \\"win32\\"",
    "exceptiongroup>=1.0.0rc8; python_version < \\"3.11\\"",
    "pluggy<2,>=1.5",
]
files = [
    {file = "pytest-8.3.5-py3-none-any.whl", hash = "sha256:${h('3')}"},
    {file = "pytest-8.3.5.tar.gz", hash = "sha256:${h('4')}"},
]

[[package]]
name = "pluggy"
version = "1.5.0"
requires_python = ">=3.8"
summary = "plugin and hook calling mechanisms for python"
groups = ["test"]
files = [
    {file = "pluggy-1.5.0-py3-none-any.whl", hash = "sha256:${h('5')}"},
]

[[package]]
name = "colorama"
version = "0.4.6"
summary = "Cross-platform colored terminal text."
groups = ["test"]
marker = "sys_platform == \\"win32\\""
files = [
    {file = "colorama-0.4.6-py2.py3-none-any.whl", hash = "sha256:${h('6')}"},
]
`;

describe('pdm.lock', () => {
  it("the test groups' packages reached through dependencies whose markers hold; a git package only narrows", () => {
    const pyproject = '[project]\nname = "q"\nversion = "1"\n[dependency-groups]\ntest = ["pytest"]\n';
    const plan = closure({ 'pyproject.toml': pyproject, 'pdm.lock': PDM_LOCK });
    expect(versions(plan)).toEqual({ pluggy: '1.5.0', pytest: '8.3.5' });
    expect(plan.locked?.packages.find((p) => p.name === 'pytest')?.hashes).toEqual([h('3'), h('4')]);
    const git = PDM_LOCK.replace(
      'name = "pluggy"\nversion = "1.5.0"\n',
      'name = "pluggy"\nversion = "1.5.0"\ngit = "https://git.example/pluggy.git"\nrevision = "abc"\n',
    );
    const narrowed = closure({ 'pyproject.toml': pyproject, 'pdm.lock': git });
    expect(narrowed.locked).toBeUndefined();
    expect(narrowed.decisions).toContain(
      'pdm.lock: not installed as locked (pluggy comes from a git source); pip resolves the requirements, narrowed to the locked versions',
    );
  });
});

const PYLOCK = `lock-version = "1.0"
requires-python = ">=3.9"
default-groups = ["default"]
dependency-groups = ["dev", "docs"]
created-by = "uv"

[[packages]]
name = "iniconfig"
version = "2.1.0"
index = "https://index.example/simple"
wheels = [{ url = "https://index.example/iniconfig-2.1.0-py3-none-any.whl", upload-time = 2025-03-19T20:10:01Z, size = 6050, hashes = { sha256 = "${h('1')}" } }]

[[packages]]
name = "tomli"
version = "2.2.1"
marker = "python_full_version < '3.11'"
index = "https://index.example/simple"
wheels = [{ url = "https://index.example/tomli-2.2.1-py3-none-any.whl", size = 14257, hashes = { sha256 = "${h('2')}" } }]

[[packages]]
name = "mkdocs"
version = "1.6.1"
marker = "'docs' in dependency_groups"
index = "https://index.example/simple"
wheels = [{ url = "https://index.example/mkdocs-1.6.1-py3-none-any.whl", size = 1, hashes = { sha256 = "${h('3')}" } }]

[[packages]]
name = "pytest"
version = "8.3.5"
marker = "'dev' in dependency_groups"
index = "https://index.example/simple"
sdist = { url = "https://index.example/pytest-8.3.5.tar.gz", size = 1, hashes = { sha256 = "${h('4')}" } }

[[packages.wheels]]
url = "https://index.example/pytest-8.3.5-py3-none-any.whl"
size = 1
hashes = { sha256 = "${h('5')}" }
`;

describe('pylock.toml', () => {
  it("takes each package whose marker holds, PEP 751's group markers included", () => {
    const plan = closure({ 'pyproject.toml': PYPROJECT, 'pylock.toml': PYLOCK });
    expect(versions(plan)).toEqual({ iniconfig: '2.1.0', pytest: '8.3.5' });
    expect(plan.locked?.packages.find((p) => p.name === 'pytest')?.hashes).toEqual([h('4'), h('5')]);
  });
});

describe('hashed requirements files (pip-compile --generate-hashes)', () => {
  const COMPILED = [
    '#',
    '# This file is autogenerated by pip-compile with Python 3.13',
    '# by the following command:',
    '#',
    '#    pip-compile --generate-hashes requirements.in',
    '#',
    'colorama==0.4.6 ; sys_platform == "win32" \\',
    `    --hash=sha256:${h('1')}`,
    '    # via pytest',
    'iniconfig==2.1.0 \\',
    `    --hash=sha256:${h('2')} \\`,
    `    --hash=sha256:${h('3')}`,
    '    # via pytest',
    'pytest==8.3.5 \\',
    `    --hash=sha256:${h('4')}`,
    '    # via -r requirements.in',
    '',
  ].join('\n');

  it('installs every hashed pin whose marker holds; a file with one unhashed line is not a lock', () => {
    const plan = closure({ 'requirements.txt': COMPILED });
    expect(versions(plan)).toEqual({ iniconfig: '2.1.0', pytest: '8.3.5' });
    expect(plan.locked?.from).toBe('requirements.txt');
    const partly = closure({ 'requirements.txt': `${COMPILED}attrs==25.1.0\n` });
    expect(partly.locked).toBeUndefined();
  });
});

describe('the locked install steps', () => {
  it("writes each package with its hashes and reads pip's refusal and report", () => {
    const locked = {
      from: 'uv.lock',
      packages: [{ name: 'demo', version: '1.0', hashes: [h('a'), h('b')] }],
    };
    expect(lockedRequirements(locked)).toBe(`demo==1.0 --hash=sha256:${h('a')} --hash=sha256:${h('b')}`);
    // pip 23's words, as it printed them for a file changed after it was locked.
    const refusal = [
      'Processing ./demo-1.0-py3-none-any.whl (from -r r.txt (line 1))',
      'ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have tampered with them.',
      '    demo==1.0 from file:///tmp/hm/demo-1.0-py3-none-any.whl (from -r r.txt (line 1)):',
      `        Expected sha256 ${h('a')}`,
      `             or ${h('b')}`,
      `             Got        ${h('c')}`,
    ].join('\n');
    expect(hashMismatches(refusal)).toEqual([{ requirement: 'demo==1.0', expected: h('a'), got: h('c') }]);
    const report = JSON.stringify({
      install: [
        {
          metadata: { name: 'demo', version: '1.0' },
          download_info: { archive_info: { hash: `sha256=${h('a')}`, hashes: { sha256: h('a') } } },
        },
      ],
    });
    expect(reportHashes(`x\npiper-pip-report\n${report}`)).toEqual([
      { name: 'demo', version: '1.0', sha256: h('a') },
    ]);
  });
});
