// What the tests need, found from the tests: the pytest configuration's plugins (where pytest
// finds it, its options and keys), the import map (Debian's names read backwards, the exceptions,
// namespaces), the standard library list, what counts as local, the optional flag, and that test
// files are read without becoming inputs (editing a test keeps the cache key).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { distributionForModule, modulesOfDistribution } from '../../runtime/env/plan/infer/import-map.js';
import { readPytestConfig } from '../../runtime/env/plan/infer/pytest-config.js';
import { pluginNeeds } from '../../runtime/env/plan/infer/pytest-plugins.js';
import { renderPlanText } from '../../runtime/env/plan/render.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import { isStdlibModule } from '../../runtime/env/plan/infer/stdlib.js';
import { planRepo } from '../helpers/env-plan-repo.js';

const PROJECT = '[project]\nname = "proj"\nversion = "1"\n';

function needs(files: Record<string, string>): string[] {
  const root = planRepo(files);
  const reader = new RepoReader(root);
  const config = readPytestConfig(reader, null);
  return config
    ? pluginNeeds(config).map((n) => `${n.requirement ?? `module ${n.module}`} <- ${n.from}`)
    : [];
}

describe('the pytest configuration', () => {
  it('is found where pytest looks: pytest.ini first, then pyproject, tox.ini, setup.cfg', () => {
    const ini = '[pytest]\naddopts = -n auto\n';
    expect(needs({ 'pytest.ini': ini, 'setup.cfg': '[tool:pytest]\ntimeout = 5\n' })).toEqual([
      'pytest-xdist <- pytest.ini [pytest].addopts -n',
    ]);
    expect(
      needs({ 'tox.ini': '[pytest]\ntimeout = 5\n', 'setup.cfg': '[tool:pytest]\nasyncio_mode = auto\n' }),
    ).toEqual(['pytest-timeout <- tox.ini [pytest].timeout']);
    expect(needs({ 'setup.cfg': '[tool:pytest]\nasyncio_mode = auto\n' })).toEqual([
      'pytest-asyncio <- setup.cfg [tool:pytest].asyncio_mode',
    ]);
  });

  it('names the plugin of each option and key, -p modules, and required_plugins', () => {
    const ini = [
      '[pytest]',
      'addopts = --cov=pkg -nauto --numprocesses=2 --timeout 5 -p no:cacheprovider -p xdist -ppytest_randomly',
      '    --benchmark-skip --reruns 2 --strict-config "-k not slow"',
      'required_plugins = pytest-html>=4 pytest-env',
      'env = A=1',
    ].join('\n');
    expect(needs({ 'pytest.ini': ini })).toEqual([
      'pytest-cov <- pytest.ini [pytest].addopts --cov=pkg',
      'pytest-xdist <- pytest.ini [pytest].addopts -nauto',
      'pytest-xdist <- pytest.ini [pytest].addopts --numprocesses=2',
      'pytest-timeout <- pytest.ini [pytest].addopts --timeout',
      'module xdist <- pytest.ini [pytest].addopts -p xdist',
      'module pytest_randomly <- pytest.ini [pytest].addopts -p pytest_randomly',
      'pytest-benchmark <- pytest.ini [pytest].addopts --benchmark-skip',
      'pytest-rerunfailures <- pytest.ini [pytest].addopts --reruns',
      'pytest-env <- pytest.ini [pytest].env',
      'pytest-html>=4 <- pytest.ini [pytest].required_plugins',
      'pytest-env <- pytest.ini [pytest].required_plugins',
    ]);
  });
});

describe('the import map', () => {
  it("reads Debian's package names backwards, with the exceptions first and namespaces by two parts", () => {
    expect(distributionForModule('yaml')).toBe('PyYAML');
    expect(distributionForModule('PIL')).toBe('pillow');
    expect(distributionForModule('hypothesis')).toBe('hypothesis');
    expect(distributionForModule('jwt')).toBe('PyJWT');
    expect(distributionForModule('pytest_asyncio')).toBe('pytest-asyncio');
    expect(distributionForModule('zope', 'zope.interface')).toBe('zope-interface');
    expect(distributionForModule('google', 'google.protobuf')).toBe('protobuf');
    expect(distributionForModule('xdist')).toBe('pytest-xdist');
    expect(distributionForModule('html5lib')).toBe('html5lib');
    expect(distributionForModule('no_such_module_anywhere')).toBeNull();
    expect(modulesOfDistribution('python-dateutil')).toContain('dateutil');
    expect(modulesOfDistribution('PyYAML')).toContain('yaml');
  });

  it("knows both Pythons' standard libraries", () => {
    for (const module of ['os', 'tomllib', 'asyncio', '_thread', 'imp', 'distutils'])
      expect(isStdlibModule(module), module).toBe(true);
    for (const module of ['numpy', 'yaml', 'pytest']) expect(isStdlibModule(module), module).toBe(false);
  });
});

describe('imports of the test tree', () => {
  const files = {
    'pyproject.toml': `${PROJECT}dependencies = ["PyYAML"]\n[project.optional-dependencies]\ntest = ["pytest"]\n`,
    'src/proj/__init__.py': '',
    'tools.py': '',
    'tests/conftest.py':
      'import pytest\nimport yaml\nfrom helpers import util\ntry:\n    import numpy\nexcept ImportError:\n    numpy = None\n',
    'tests/helpers/util.py': 'import proj\nimport tools\nimport attr\n',
    'tests/test_a.py':
      'import numpy\nimport hypothesis\nimport zzz_unknown\ndef test():\n    import freezegun\n',
    'tests/test_b.py': 'import hypothesis\nfreezegun = __import__("pytest").importorskip("freezegun")\n',
    'sub/conftest.py': 'import responses\n',
  };

  it('infers undeclared distributions with the first file and a count, and skips unknown modules', () => {
    const plan = planEnvironment(planRepo(files));
    const inferred = plan.requirements.filter((r) => r.reason === 'inferred');
    expect(inferred.map((r) => [r.name, r.from, r.optional])).toEqual([
      ['attrs', 'tests/helpers/util.py imports attr', false],
      ['freezegun', 'tests/test_a.py imports freezegun (+1 files)', false],
      ['hypothesis', 'tests/test_a.py imports hypothesis (+1 files)', false],
      // imported under try/except ImportError in conftest.py, plainly in test_a.py: not optional
      ['numpy', 'tests/conftest.py imports numpy (+1 files)', false],
      ['responses', 'sub/conftest.py imports responses', false],
    ]);
    expect(plan.skipped).toContainEqual({
      line: 'zzz_unknown',
      from: 'tests/test_a.py',
      reason: 'imported by tests/test_a.py; no distribution is known for it',
    });
    // Test files are read, never recorded: editing one keeps the inputs (the cache key).
    expect(plan.inputs.map((i) => i.path)).toEqual(['pyproject.toml']);
  });

  it('marks a distribution optional only when every import of it is', () => {
    const plan = planEnvironment(
      planRepo({
        ...files,
        'tests/test_a.py': 'try:\n    import numpy\nexcept ModuleNotFoundError:\n    pass\n',
      }),
    );
    const numpy = plan.requirements.find((r) => r.normalized === 'numpy');
    expect(numpy?.optional).toBe(true);
    expect(plan.requirements.find((r) => r.normalized === 'freezegun')?.optional).toBe(true);
    // The text shows the reason, and that it is optional, in the why column.
    expect(renderPlanText(plan)).toMatch(
      /^ {2}inferred \(optional\) +numpy +python3-numpy +tests\/conftest\.py imports numpy \(\+1 files\)$/m,
    );
  });

  it('reads testpaths from the configuration, and never a test directory that leaves the repository', () => {
    const outside = planRepo({ 'test_out.py': 'import requests\n' });
    const root = planRepo({
      'pyproject.toml': `${PROJECT}[tool.pytest.ini_options]\ntestpaths = "checks"\npythonpath = ["lib"]\n`,
      'checks/test_x.py': 'import mylib\nimport tests_only_here\n',
      'lib/mylib.py': '',
      'tests/test_ignored.py': 'import requests\n',
    });
    mkdirSync(join(root, 'checks', 'more'));
    symlinkSync(outside, join(root, 'checks', 'linked'));
    writeFileSync(join(root, 'checks', 'more', 'test_y.py'), 'import six\n');
    const plan = planEnvironment(root);
    expect(plan.requirements.filter((r) => r.reason === 'inferred').map((r) => r.name)).toEqual(['six']);
    expect(plan.skipped.map((s) => s.line)).toEqual(['tests_only_here']);
  });
});
