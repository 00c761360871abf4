// The project's own test command (runtime/env/plan/tests/test-command.ts), detected from its files as
// text: the order of the sources, the translations of tox/nox/make, the CI step's env with
// expressions and sandbox-changing names dropped, and the summaries run_test counts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { readYaml } from '../../runtime/env/plan/read/mini-yaml.js';
import { renderPlanText } from '../../runtime/env/plan/render.js';
import { DEFAULT_TEST_FROM, detectTestCommand } from '../../runtime/env/plan/tests/test-command.js';
import { pytestCounts, testCounts, unittestCounts } from '../../runtime/test-output/counts.js';
import { parseTestOutcomes } from '../../runtime/test-output/outcomes.js';
import { shellArgv, targetArgv } from '../../primitives/tools/run-test/effect.js';
import { runsTests } from '../../runtime/env/plan/tests/test-runners.js';

const roots: string[] = [];
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-test-cmd-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function detect(files: Record<string, string>, recipeTest?: string) {
  const decisions: string[] = [];
  return { ...detectTestCommand(repo(files), recipeTest, decisions), decisions };
}

const WORKFLOW = `name: CI
on: [push, pull_request]
env:
  FROM_WORKFLOW: "w"   # a comment
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: ruff check .
  test:
    runs-on: ubuntu-latest
    env:
      TINY_MODE: job
      PATH: /evil/bin
    steps:
      - uses: actions/checkout@v4
      - name: Install
        run: pip install -e .
      - name: "Run tests"
        env:
          TINY_MODE: strict
          API_TOKEN: \${{ secrets.API_TOKEN }}
          LD_PRELOAD: /work/evil.so
          "bad-name": x
          WITH_NUL: "a\\0b"
        run: |
          echo starting  # not the tests
          python -m pytest -q tests
`;

describe('the CI workflow test step', () => {
  it('gives the run line, where it came from, and the env of workflow, job and step (the step wins)', () => {
    const found = detect({
      '.github/workflows/ci.yml': WORKFLOW,
      'tox.ini': '[testenv]\ncommands = pytest\n',
    });
    expect(found.command).toBe('python -m pytest -q tests');
    expect(found.from).toBe('.github/workflows/ci.yml job test step "Run tests"');
    expect(found.env).toEqual({ FROM_WORKFLOW: 'w', TINY_MODE: 'strict' });
    const said = found.decisions.join('\n');
    expect(said).toMatch(/env API_TOKEN not set: its value is an expression/);
    expect(said).toMatch(/env PATH not set: it would change which programs run/);
    expect(said).toMatch(/env LD_PRELOAD not set: it would change how the dynamic linker/);
    expect(said).toMatch(/env bad-name not set: not a plain variable name/);
    expect(said).toMatch(/env WITH_NUL not set: its value holds a NUL byte/);
    expect(said).toMatch(/a test step never sets PATH, HOME, .*PYTHONPATH.*LD_\*/);
  });

  it('passes over a line with an expression, translates tox, nox and make, and drops uv run', () => {
    const matrix = WORKFLOW.replace(
      'python -m pytest -q tests',
      'pytest --python ${{ matrix.py }}\n          tox -e py',
    );
    const tox = detect({
      '.github/workflows/ci.yml': matrix,
      'tox.ini':
        '[testenv]\nsetenv =\n    TOX_SET = yes\ncommands =\n    - coverage erase\n    pytest {posargs:tests} -x\n',
    });
    expect(tox.command).toBe('pytest tests -x');
    expect(tox.env).toMatchObject({ TOX_SET: 'yes', TINY_MODE: 'strict' });
    expect(tox.decisions.join('\n')).toMatch(/not used: it holds a `\$\{\{ \}\}` expression/);
    expect(tox.decisions.join('\n')).toMatch(
      /tox translated to tox.ini \[testenv\] commands `pytest tests -x`/,
    );
    // cachetools' tox.ini: tox's scratch directory is the sandbox's /tmp.
    const basetemp = detect({
      '.github/workflows/ci.yml': WORKFLOW.replace('python -m pytest -q tests', 'tox'),
      'tox.ini':
        '[testenv]\ncommands =\n    py.test --basetemp={envtmpdir} --cov=cachetools --cov-report term-missing {posargs}\n',
    });
    expect(basetemp.command).toBe(
      'py.test --basetemp=/tmp/tox-envtmpdir --cov=cachetools --cov-report term-missing',
    );

    const nox = detect({
      '.github/workflows/ci.yml': WORKFLOW.replace('python -m pytest -q tests', 'nox -s tests'),
      'noxfile.py':
        'import nox\n\n@nox.session\ndef lint(session):\n    session.run("ruff", ".")\n\n@nox.session(python=["3.12"])\ndef tests(session):\n    session.install(".")\n    session.run("pytest", "-q", *session.posargs)\n',
    });
    expect(nox.command).toBe('pytest -q');

    const make = detect({
      '.github/workflows/ci.yml': WORKFLOW.replace('python -m pytest -q tests', 'uv run make test'),
      Makefile:
        'PYTHON ?= python3\n\ntest: install\n\t@$(PYTHON) -m unittest discover -s tests\n\ninstall:\n\tpip install -e .\n',
    });
    expect(make.command).toBe('python3 -m unittest discover -s tests');
    expect(make.decisions.join('\n')).toMatch(/`uv run` dropped.*make test translated to its recipe/);

    // sqlparse: the workflow's `uv run` has options of its own; its Makefile runs the suite once per Python.
    const uv = detect({
      '.github/workflows/ci.yml': WORKFLOW.replace(
        'python -m pytest -q tests',
        'uv run --group dev --python=3.12 --frozen pytest tests/',
      ),
    });
    expect(uv.command).toBe('pytest tests/');
    expect(uv.decisions.join('\n')).toMatch(/`uv run --group dev --python=3\.12 --frozen` dropped/);
    const perPython = detect({
      Makefile: `test:\n${[3.1, 3.11, 3.12].map((v) => `\tuv run --group dev --python ${v} pytest tests/`).join('\n')}\n`,
    });
    expect(perPython.command).toBe('pytest tests/');
    expect(perPython.decisions.join('\n')).toMatch(/3 recipe lines ran 1 command\(s\)/);
    // A hostile CI line: options that could each be the one before's value. Read one way only, so
    // it is passed over at once (a backtracking reading would not return within the test's time).
    const hostile = `uv run ${'--group '.repeat(60)}-p`;
    expect(runsTests(hostile)).toBe(false);
    expect(runsTests(`uv run ${'--group x '.repeat(60)}pytest`)).toBe(true);
  });
});

describe('the order of the other sources', () => {
  it('the recipe first; then tox, nox, make; pytest config; unittest-only; else the default', () => {
    expect(detect({ '.github/workflows/ci.yml': WORKFLOW }, 'make check').from).toBe(
      '.piper/sandbox.toml test',
    );
    expect(detect({ 'tox.ini': '[testenv]\ncommands = python -m pytest {posargs}\n' })).toMatchObject({
      command: 'python -m pytest',
      from: 'tox.ini [testenv] commands',
    });
    expect(detect({ Makefile: 'test:\n\tpytest -q\n' })).toMatchObject({
      command: 'pytest -q',
      from: 'Makefile test target',
    });
    expect(detect({ 'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' })).toMatchObject({
      command: 'python -m pytest',
      from: 'pyproject.toml [tool.pytest.ini_options] testpaths',
    });
    const unit = 'import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n';
    expect(detect({ 'tests/__init__.py': '', 'tests/test_a.py': unit })).toMatchObject({
      command: 'python -m unittest discover -s tests -t .',
    });
    expect(detect({ 'test/test_a.py': unit }).command).toBe('python -m unittest discover -s test');
    expect(detect({ 'tests/test_a.py': `import pytest\n${unit}` }).from).toBe(DEFAULT_TEST_FROM);
    // TestCase classes beside plain test functions or a base-less test class: unittest would never
    // run those, so pytest runs the suite.
    expect(detect({ 'tests/test_a.py': `${unit}\ndef test_plain():\n    assert False\n` }).from).toBe(
      DEFAULT_TEST_FROM,
    );
    expect(
      detect({
        'tests/test_a.py': unit,
        'tests/test_b.py': 'class TestB:\n    def test_b(self):\n        pass\n',
      }).from,
    ).toBe(DEFAULT_TEST_FROM);
    expect(detect({ 'tests/test_a.py': 'def test_a():\n    pass\n' })).toMatchObject({
      command: 'python -m pytest',
      from: DEFAULT_TEST_FROM,
      env: {},
    });
  });

  it('is in the plan, shown by env plan, and not an input of the environment key', () => {
    const root = repo({ '.github/workflows/ci.yml': WORKFLOW });
    const plan = planEnvironment(root);
    expect(plan).toMatchObject({
      testCommand: 'python -m pytest -q tests',
      testCommandFrom: '.github/workflows/ci.yml job test step "Run tests"',
      testEnv: { FROM_WORKFLOW: 'w', TINY_MODE: 'strict' },
    });
    expect(plan.inputs.map((i) => i.path)).not.toContain('.github/workflows/ci.yml');
    const text = renderPlanText(plan);
    expect(text).toContain('test command: python -m pytest -q tests');
    expect(text).toContain('  from .github/workflows/ci.yml job test step "Run tests"');
    expect(text).toContain('  env TINY_MODE=strict');
  });
});

describe('the small YAML reader', () => {
  it('reads block mappings, sequences at the key indent, quoted keys, block scalars; never throws', () => {
    expect(readYaml('a:\n- x: 1\n  y: "two"\n- z\nb: |-\n  one\n   two\n')).toEqual({
      a: [{ x: '1', y: 'two' }, 'z'],
      b: 'one\n two',
    });
    expect(readYaml("a: [1, 2] # c\n\"k\": 'it''s'\n")).toEqual({ a: '[1, 2]', k: "it's" });
    expect(readYaml('a:\n    b: 1\n  c: 2\n')).toBeNull();
    expect(readYaml('')).toBeNull();
    // A hostile line is read in linear time.
    const t0 = Date.now();
    expect(readYaml(`a${' '.repeat(200_000)}b\n`)).toBeNull();
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe('counts', () => {
  it("reads a coloured summary (pytest --color=yes, as humanize's addopts ask)", () => {
    // The closing line as pytest writes it with colours on (captured from a real run).
    const line =
      '\u001b[31m============ \u001b[31m\u001b[1m1 failed\u001b[0m, \u001b[32m729 passed\u001b[0m, \u001b[33m69 skipped\u001b[0m\u001b[31m in 159.85s (0:02:39)\u001b[0m\u001b[31m =============\u001b[0m';
    expect(testCounts(`x\n${line}\n`, '')).toEqual({ passed: 729, failed: 1, errors: 0, skipped: 69 });
    // And its per-test summary line, as the regression gate and the SWE-bench grader read it.
    const failed =
      '\u001b[31mFAILED\u001b[0m src/humanize/time.py::\u001b[1mhumanize.time.naturaldelta\u001b[0m';
    expect([...parseTestOutcomes('pytest', `${failed}\n`)]).toEqual([
      ['src/humanize/time.py::humanize.time.naturaldelta', 'FAILED'],
    ]);
  });

  it("reads unittest's summary from stderr as pytest's counts", () => {
    expect(unittestCounts('...\n------\nRan 12 tests in 0.003s\n\nOK\n')).toEqual({
      passed: 12,
      failed: 0,
      errors: 0,
      skipped: 0,
    });
    expect(unittestCounts('Ran 12 tests in 0.003s\n\nFAILED (failures=1, errors=2, skipped=3)\n')).toEqual({
      passed: 6,
      failed: 1,
      errors: 2,
      skipped: 3,
    });
    expect(unittestCounts('Ran 1 test in 0.000s\n\nOK (skipped=1, expected failures=0)\n')).toEqual({
      passed: 0,
      failed: 0,
      errors: 0,
      skipped: 1,
    });
    expect(unittestCounts('no summary here')).toBeUndefined();
    expect(pytestCounts('==== 1 failed, 2 passed, 3 skipped in 0.12s ====')).toEqual({
      passed: 2,
      failed: 1,
      errors: 0,
      skipped: 3,
    });
  });

  it("routes pytest in the environment's interpreter and everything else through the shell", () => {
    expect(targetArgv('python -m pytest -q tests')).toEqual(['python3', '-m', 'pytest', '-q', 'tests']);
    expect(targetArgv('python3 -m pytest')).toEqual(['python3', '-m', 'pytest']);
    expect(targetArgv('python -m pytest -k "a and b"')).toEqual(shellArgv('python3 -m pytest -k "a and b"'));
    // In the interpreter that already imported pytest, as the venv's launcher would run it.
    expect(targetArgv('pytest')).toEqual(['python3', '-m', 'pytest']);
    expect(targetArgv('py.test --basetemp=/tmp/tox-envtmpdir --cov=cachetools')).toEqual([
      'python3',
      '-m',
      'pytest',
      '--basetemp=/tmp/tox-envtmpdir',
      '--cov=cachetools',
    ]);
    expect(targetArgv('pytest -k "a or b"')).toEqual(shellArgv('python3 -m pytest -k "a or b"'));
    // Any other form: the shell finds the runner in the environment's bin.
    expect(targetArgv('VAR=x pytest tests')).toEqual(shellArgv('VAR=x pytest tests'));
    expect(targetArgv('cd tests && pytest')).toEqual(shellArgv('cd tests && pytest'));
    expect(targetArgv('python -m unittest discover -s tests -v')).toEqual(
      shellArgv('python -m unittest discover -s tests -v'),
    );
  });
});
