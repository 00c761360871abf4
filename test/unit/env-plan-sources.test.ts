// Every place a project declares test dependencies, read as a union: the test-name rule, Poetry's
// version syntax, tox (tox.ini, legacy_tox_ini, native TOML, tox.toml), nox sessions, requirements
// file names, and lines that cannot be read skipped with why instead of failing the plan.
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { poetryPythonMarker, poetryToPep440 } from '../../runtime/env/plan/deps/poetry-version.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import { requirementFileNames } from '../../runtime/env/plan/deps/requirement-file-names.js';
import { isTestName } from '../../runtime/env/plan/tests/test-names.js';
import type { EnvPlan } from '../../runtime/env/plan/types.js';
import { planRepo } from '../helpers/env-plan-repo.js';

const PROJECT = '[project]\nname = "demo"\nversion = "1"\n';

function byName(plan: EnvPlan): Record<string, { line: string; from: string; reason: string }> {
  return Object.fromEntries(plan.requirements.map((r) => [r.normalized, r]));
}

describe('the test-name rule', () => {
  it('takes the listed names and names starting or ending with the word test(s)', () => {
    const yes = [
      'test',
      'Tests',
      'testing',
      'dev',
      'develop',
      'development',
      'test-extras',
      'tests_require',
      'unit-tests',
      'hatch-test',
    ];
    const no = ['docs', 'lint', 'latest', 'pytest', 'typing', 'contest', 'devtools', 'testingx'];
    for (const name of yes) expect(isTestName(name), name).toBe(true);
    for (const name of no) expect(isTestName(name), name).toBe(false);
  });
});

describe("Poetry's version syntax as PEP 440", () => {
  it('converts caret, tilde, wildcard, bare and spaced constraints as poetry-core does', () => {
    const cases: Array<[string, string | null]> = [
      ['^1.2.3', '>=1.2.3,<2.0.0'],
      ['^1.2', '>=1.2,<2.0'],
      ['^1', '>=1,<2'],
      ['^0.2.3', '>=0.2.3,<0.3.0'],
      ['^0.0.3', '>=0.0.3,<0.0.4'],
      ['^0.0', '>=0.0,<0.1'],
      ['~1.2.3', '>=1.2.3,<1.3.0'],
      ['~1.2', '>=1.2,<1.3'],
      ['~1', '>=1,<2'],
      ['~=1.4', '~=1.4'],
      ['*', ''],
      ['', ''],
      ['1.2.3', '==1.2.3'],
      ['=1.2', '==1.2'],
      ['1.2.*', '==1.2.*'],
      ['>= 1.2, < 2', '>=1.2,<2'],
      ['>=1.2 <2.0', '>=1.2,<2.0'],
      ['!=1.5', '!=1.5'],
      ['^1.0 || ^2.0', null],
    ];
    for (const [poetry, pep440] of cases) expect(poetryToPep440(poetry), poetry).toBe(pep440);
  });

  it('turns a python constraint into a marker', () => {
    expect(poetryPythonMarker('^3.8')).toBe('python_version >= "3.8" and python_version < "4.0"');
    expect(poetryPythonMarker('<3.11.4')).toBe('python_full_version < "3.11.4"');
    expect(poetryPythonMarker('*')).toBe('');
  });
});

describe('the union of test declarations', () => {
  it('reads every test-named extra, group, file, tox env and nox session, and keeps every source', () => {
    const root = planRepo({
      'pyproject.toml': `${PROJECT}[project.optional-dependencies]\ntest = ["pytest>=7"]\ndocs = ["myst-parser"]\n[dependency-groups]\ndev = ["pytest<9", "hypothesis"]\nci = ["pytest-github-actions-annotate-failures"]\n`,
      'requirements-test.txt': 'pytest==8.1\n',
      'tests/requirements.txt': 'responses\n',
      'tox.ini': '[testenv]\ndeps =\n    mock\nextras = test\n',
      'noxfile.py': 'import nox\n\n@nox.session\ndef tests(session):\n    session.install("freezegun")\n',
    });
    const plan = planEnvironment(root);
    const found = byName(plan);
    expect(Object.keys(found).sort()).toEqual([
      'freezegun',
      'hypothesis',
      'mock',
      'pytest',
      'responses',
      'setuptools',
    ]);
    expect(found.pytest?.line).toBe('pytest<9,==8.1,>=7');
    expect(found.pytest?.from).toBe(
      'pyproject.toml [project.optional-dependencies].test; pyproject.toml [dependency-groups].dev; requirements-test.txt:1',
    );
    expect(found.freezegun?.from).toBe('noxfile.py:5 session tests');
    expect(plan.decisions).toContain('dependency-groups "dev" read (test-named); not "ci"');
    expect(plan.decisions).toContain('optional-dependencies "test" read (test-named); not "docs"');
  });

  it("reads tox's native TOML, its dependency groups (whatever their name) and tox.toml", () => {
    const root = planRepo({
      'pyproject.toml': `${PROJECT}[dependency-groups]\nci = ["pytest"]\nlint = ["ruff"]\n[tool.tox.env_run_base]\ndeps = ["mock", "{[x]y}"]\ndependency_groups = ["ci"]\n`,
      'tox.toml': '[env_run_base]\ndeps = ["requests-mock"]\n',
    });
    const plan = planEnvironment(root);
    expect(Object.keys(byName(plan)).sort()).toEqual(['mock', 'pytest', 'requests-mock', 'setuptools']);
    expect(plan.decisions).toContain(
      'dependency-groups "ci" read (test-named, or installed by tox); not "lint"',
    );
    expect(plan.skipped).toContainEqual({
      line: '{[x]y}',
      from: 'pyproject.toml [tool.tox.env_run_base].deps',
      reason: 'a tox substitution: not resolved',
    });
  });

  it('skips what it cannot read in best-effort sources instead of failing the plan', () => {
    const root = planRepo({
      'pyproject.toml':
        '[tool.poetry]\nname = "poet"\n[tool.poetry.group.test.dependencies]\npytest = "^1.0 || ^2.0"\ngood = "^1"\n',
      'tox.ini': '[testenv]\ndeps =\n    --weird-option x\n    bad ==\n',
      'noxfile.py': 'import nox\n@nox.session\ndef tests(session):\n    session.install(f"pkg=={V}", "ok")\n',
    });
    const plan = planEnvironment(root);
    expect(plan.project.name).toBe('poet');
    expect(Object.keys(byName(plan)).sort()).toEqual(['good', 'ok']);
    const reasons = plan.skipped.map((s) => `${s.line} | ${s.reason}`);
    expect(reasons).toContain('pytest | Poetry constraint "^1.0 || ^2.0" has no PEP 440 form: not read');
    expect(
      reasons.some((r) =>
        r.startsWith('--weird-option x | not read: tox.ini [testenv].deps: unknown pip option'),
      ),
    ).toBe(true);
    expect(reasons.some((r) => r.startsWith('bad == | not read:'))).toBe(true);
    expect(reasons).toContain('session.install(...) | 1 argument(s) not a string literal: not read');
  });
});

describe('noxfile.py', () => {
  it('reads test sessions and helpers, not lint or docs sessions, and follows -r and -e', () => {
    const root = planRepo({
      'pyproject.toml': `${PROJECT}[project.optional-dependencies]\nfast = ["orjson"]\n`,
      'noxfile.py': [
        'import nox',
        'def helper(session):',
        '    session.install("-rci/reqs.txt")',
        '@nox.session(name="tests-unit", python=["3.13"])',
        'def anything(session):',
        '    session.install("-e", ".[fast]", "--upgrade")',
        '@nox.session',
        'def lint(session):',
        '    session.install("ruff")',
        '',
      ].join('\n'),
      'ci/reqs.txt': 'six\n',
    });
    const plan = planEnvironment(root);
    expect(Object.keys(byName(plan)).sort()).toEqual(['orjson', 'setuptools', 'six']);
    expect(plan.decisions).toContain(
      'noxfile.py: session.install literals read (sessions "tests-unit" test-named, and helpers); not "lint"; never run',
    );
  });
});

describe("pip-compile'd files", () => {
  it('keep what a file asked for as requirements and read pins only other packages asked for as constraints', () => {
    const compiled = [
      '# This file is autogenerated by pip-compile with Python 3.12',
      '#    pip-compile --generate-hashes requirements/test.in',
      'packaging==25.0 \\',
      '    --hash=sha256:aaaa',
      '    # via',
      '    #   build',
      '    #   pytest',
      'pluggy==1.6.0',
      '    # via pytest',
      'pytest==8.4.2 \\',
      '    --hash=sha256:bbbb',
      '    # via -r requirements/test.in',
      'coverage[toml]==7.10.7',
      '    # via',
      '    #   -r requirements/test.in',
      '    #   pytest-cov',
      'pytest-cov==6.0.0',
      '    # via -r requirements/test.in',
      'tomli==2.2.1',
      '    # via hatch (pyproject.toml)',
      '',
    ].join('\n');
    const plan = planEnvironment(
      planRepo({ 'requirements/test.txt': compiled, 'requirements/other.txt': 'pluggy>=1\n' }),
    );
    expect(plan.requirements.map((r) => r.line)).toEqual([
      'coverage[toml]==7.10.7',
      'pytest==8.4.2',
      'pytest-cov==6.0.0',
      'tomli==2.2.1',
    ]);
    expect(plan.decisions).toContain(
      'requirements/test.txt: 2 pin(s) pip-compile marked `# via` another package read as constraints (they narrow, never add)',
    );
  });
});

describe('requirements file names', () => {
  it('takes every test/dev-named file, a compiled .txt over its .in, and leaves docs and lint out', () => {
    const root = planRepo({
      'requirements.txt': '',
      'test-requirements.txt': '',
      'requirements/dev.txt': '',
      'requirements/test.in': '',
      'requirements/test.txt': '',
      'requirements/unit-tests.in': '',
      'requirements/docs.txt': '',
      'tests/requirements.txt': '',
      'requirements-lint.txt': '',
    });
    const names = requirementFileNames(new RepoReader(root));
    expect(names.runtime).toBe('requirements.txt');
    expect(names.test).toEqual([
      'requirements/dev.txt',
      'requirements/test.txt',
      'requirements/unit-tests.in',
      'test-requirements.txt',
      'tests/requirements.txt',
    ]);
    expect(names.ignored.map((i) => i.path).sort()).toEqual([
      'requirements-lint.txt',
      'requirements/docs.txt',
    ]);
  });
});
