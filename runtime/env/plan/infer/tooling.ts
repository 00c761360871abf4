// Tooling versus what the tests need. A development list mixes the two: a linter, formatter, type
// checker, docs builder, release or task tool is run by a developer or CI beside the tests, never
// imported by them, and an unavailable version of one must not stop an environment build. The
// table names them by category (exact PEP 503 names, name prefixes, name suffixes); the rule:
//
//   a requirement whose name is in the table, that came only from development/test lists (not
//   [project].dependencies or a runtime requirements file, not [build-system].requires, not the
//   recipe), and that no test imports, is skipped as `tooling (<category>)`.
//
// An import from the tests keeps one (a test of a flake8 plugin imports flake8); the recipe's
// `requirements = [...]` forces one back. `coverage` and `pytest-cov` are not here: a test run
// uses them. setuptools-scm, hatchling and other build backends are not either: in
// [build-system].requires they are build requirements, the only place they matter.
import type { Planner } from '../planner.js';
import { normalizeName } from '../read/normalize.js';

const TOOLING: Readonly<Record<string, { names: string[]; prefixes?: string[]; suffixes?: string[] }>> = {
  lint: {
    names: [
      'ruff',
      'flake8',
      'pylint',
      'pyflakes',
      'pycodestyle',
      'pydocstyle',
      'pep8',
      'pep8-naming',
      'mccabe',
      'bandit',
      'vulture',
      'codespell',
      'check-manifest',
      'pyroma',
      'doc8',
      'yamllint',
      'autoflake',
      'pyupgrade',
      'refurb',
      'interrogate',
      'validate-pyproject',
      'check-wheel-contents',
      'pip-audit',
      'safety',
      'deptry',
      'darglint',
      'restructuredtext-lint',
      'rstcheck',
    ],
    prefixes: ['flake8-', 'pylint-'],
  },
  format: {
    names: [
      'black',
      'isort',
      'autopep8',
      'yapf',
      'blacken-docs',
      'docformatter',
      'add-trailing-comma',
      'usort',
      'ufmt',
    ],
  },
  'type-check': {
    names: ['mypy', 'pyright', 'basedpyright', 'pytype', 'pyre-check'],
    prefixes: ['types-'],
    suffixes: ['-stubs'],
  },
  docs: {
    names: [
      'sphinx',
      'mkdocs',
      'mkdocstrings',
      'furo',
      'myst-parser',
      'myst-nb',
      'nbsphinx',
      'numpydoc',
      'pydata-sphinx-theme',
      'sphinx-rtd-theme',
      'alabaster',
      'pdoc',
      'pdoc3',
      'docutils',
    ],
    prefixes: ['sphinx-', 'sphinxcontrib-', 'mkdocs-', 'mkdocstrings-'],
    suffixes: ['-sphinx-theme', '-sphinx-themes'],
  },
  release: {
    names: [
      'twine',
      'build',
      'bump2version',
      'bumpversion',
      'bump-my-version',
      'bumpver',
      'towncrier',
      'zest-releaser',
      'python-semantic-release',
      'commitizen',
      'scriv',
      'gitchangelog',
      'setuptools-twine',
    ],
  },
  'task runner': {
    names: [
      'tox',
      'nox',
      'invoke',
      'pre-commit',
      'hatch',
      'pdm',
      'poetry',
      'uv',
      'pip-tools',
      'pip-compile-multi',
      'pipenv',
      'taskipy',
      'poethepoet',
    ],
    prefixes: ['tox-', 'nox-', 'pre-commit-', 'poetry-plugin-'],
  },
  'coverage reporting': {
    names: ['coveralls', 'python-coveralls', 'codecov', 'diff-cover', 'coverage-badge'],
  },
  interactive: {
    names: ['ipython', 'ipdb', 'pdbpp', 'jupyter', 'jupyterlab', 'notebook'],
  },
};

/** The tooling category of a distribution, or null when the table does not name it. */
export function toolingCategory(name: string): string | null {
  const normalized = normalizeName(name);
  for (const [category, { names, prefixes = [], suffixes = [] }] of Object.entries(TOOLING)) {
    if (
      names.includes(normalized) ||
      prefixes.some((p) => normalized.startsWith(p)) ||
      suffixes.some((s) => normalized.endsWith(s))
    )
      return category;
  }
  return null;
}

/** Apply the rule; `imported` maps a normalized name to the test file that imports it. */
export function skipTooling(planner: Planner, imported: ReadonlyMap<string, string>): number {
  let skipped = 0;
  for (const view of planner.set.views()) {
    const category = toolingCategory(view.name);
    if (category === null || [...view.kinds].some((kind) => kind !== 'test')) continue;
    const importer = imported.get(view.normalized);
    if (importer) {
      planner.set.note(view.name, importer);
      planner.decisions.push(`${view.name}: tooling (${category}), kept: ${importer}`);
      continue;
    }
    const removed = planner.set.remove(view.name);
    if (!removed) continue;
    skipped++;
    planner.set.skipped.push({ ...removed, reason: `tooling (${category}): tests do not import it` });
  }
  if (skipped)
    planner.decisions.push(
      `tooling: ${skipped} requirement(s) named only by development lists and imported by no test: skipped (the recipe's requirements force one back)`,
    );
  return skipped;
}
