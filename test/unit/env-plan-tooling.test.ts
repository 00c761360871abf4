// Tooling versus test requirements: the table's categories (names, prefixes, suffixes) and the
// rule — skipped only when development lists alone name it and no test imports it; a runtime or
// build requirement, an import from the tests, the recipe's requirements or an extra the recipe
// chose keep it.
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { renderPlanText } from '../../runtime/env/plan/render.js';
import { toolingCategory } from '../../runtime/env/plan/infer/tooling.js';
import { planRepo } from '../helpers/env-plan-repo.js';

describe('the tooling table', () => {
  it('names each category by exact name, prefix or suffix, and never what a test run uses', () => {
    const cases: Array<[string, string | null]> = [
      ['ruff', 'lint'],
      ['flake8-bugbear', 'lint'],
      ['Black', 'format'],
      ['isort', 'format'],
      ['mypy', 'type-check'],
      ['types-PyYAML', 'type-check'],
      ['django-stubs', 'type-check'],
      ['Sphinx', 'docs'],
      ['sphinxcontrib-log-cabinet', 'docs'],
      ['pallets-sphinx-themes', 'docs'],
      ['mkdocs-material', 'docs'],
      ['twine', 'release'],
      ['build', 'release'],
      ['tox', 'task runner'],
      ['tox-uv', 'task runner'],
      ['pre_commit', 'task runner'],
      ['codecov', 'coverage reporting'],
      ['ipython', 'interactive'],
      ['coverage', null],
      ['pytest-cov', null],
      ['pytest', null],
      ['pytest-mypy', null],
      ['setuptools-scm', null],
      ['hatchling', null],
    ];
    for (const [name, category] of cases) expect(toolingCategory(name), name).toBe(category);
  });
});

describe('the tooling rule', () => {
  const pyproject = (extra = ''): string =>
    [
      '[build-system]',
      'requires = ["setuptools>=61", "build"]',
      'build-backend = "setuptools.build_meta"',
      '[project]',
      'name = "tooled"',
      'version = "1"',
      'dependencies = ["black"]',
      '[project.optional-dependencies]',
      'test = ["pytest", "ruff==0.0.1", "build", "black", "flake8>=99", "mypy"]',
      'docs = ["sphinx>=99"]',
      '[dependency-groups]',
      'dev = ["pre-commit==0.0.1", "twine"]',
      extra,
    ].join('\n');

  it('skips tooling named only by development lists, with its category, and keeps the rest', () => {
    const root = planRepo({
      'pyproject.toml': pyproject(),
      'tooled/__init__.py': '',
      'tests/test_plugin.py': 'import flake8\n\ndef test_it():\n    assert flake8\n',
    });
    const plan = planEnvironment(root);
    const kept = plan.requirements.map((r) => r.normalized).sort();
    // black: runtime; build: a build requirement; flake8: a test imports it.
    expect(kept).toEqual(['black', 'build', 'flake8', 'pytest', 'setuptools']);
    expect(plan.skipped.map((s) => `${s.line}: ${s.reason}`).sort()).toEqual([
      'mypy: tooling (type-check): tests do not import it',
      'pre-commit==0.0.1: tooling (task runner): tests do not import it',
      'ruff==0.0.1: tooling (lint): tests do not import it',
      'twine: tooling (release): tests do not import it',
    ]);
    const flake8 = plan.requirements.find((r) => r.normalized === 'flake8');
    expect(flake8?.from).toBe(
      'pyproject.toml [project.optional-dependencies].test; tests/test_plugin.py imports flake8',
    );
    expect(plan.decisions).toContain('flake8: tooling (lint), kept: tests/test_plugin.py imports flake8');
    // The text lists each skipped one on one line.
    expect(renderPlanText(plan)).toMatch(
      /^ {2}ruff==0\.0\.1 {2}skipped: tooling \(lint\): tests do not import it {2}\(pyproject\.toml \[project\.optional-dependencies\]\.test\)$/m,
    );
  });

  it("brings one back through the recipe's requirements, and leaves the extras the recipe chose alone", () => {
    const root = planRepo({
      'pyproject.toml': pyproject(),
      '.piper/sandbox.toml': 'requirements = ["mypy"]\nextras = ["test", "docs"]\n',
    });
    const plan = planEnvironment(root);
    const kept = plan.requirements.map((r) => r.normalized).sort();
    expect(kept).toEqual(['black', 'build', 'flake8', 'mypy', 'pytest', 'ruff', 'setuptools', 'sphinx']);
    expect(plan.requirements.find((r) => r.normalized === 'mypy')?.from).toBe(
      'pyproject.toml [project.optional-dependencies].test; .piper/sandbox.toml requirements[0]',
    );
    expect(plan.skipped.map((s) => s.line).sort()).toEqual(['pre-commit==0.0.1', 'twine']);
  });
});
