// The regression gate's pure parts: the per-test rule, the whole-command fallback, the affected test
// files of an over-budget suite, the words every output shows, and the A/B arm measure.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixesWithRegressions, suiteRegressionsOf } from '../../eval/ab/regression-measure.js';
import type { InstanceFacts } from '../../eval/ab/metrics.js';
import { compareRuns, type SuiteRun } from '../../policy/regression/suite-compare.js';
import { readSuiteRun } from '../../policy/regression/suite-read.js';
import { suiteLine, type SuiteReport } from '../../policy/regression/suite-report.js';
import { affectedTestFiles } from '../../primitives/regression/affected-tests.js';
import { verbose } from '../../primitives/regression/suite-run.js';

function run(stdout: string, exitCode = 1, timedOut = false): SuiteRun {
  return readSuiteRun({ stdout, stderr: '', exit_code: exitCode, timed_out: timedOut });
}

const BEFORE = `
=========================== short test summary info ============================
PASSED tests/test_a.py::test_one
PASSED tests/test_a.py::test_two
FAILED tests/test_b.py::test_known - assert 1 == 2
FAILED tests/test_b.py::test_repro - assert 2 == 3
PASSED tests/test_c.py::test_gone
`;

const AFTER = `
=================================== FAILURES ===================================
___________________________________ test_two ___________________________________
E       AssertionError: assert 'x' == 'y'
=========================== short test summary info ============================
PASSED tests/test_a.py::test_one
FAILED tests/test_a.py::test_two - AssertionError: assert 'x' == 'y'
FAILED tests/test_b.py::test_known - assert 1 == 2
PASSED tests/test_b.py::test_repro
ERROR tests/test_c.py - ImportError: cannot import name 'gone'
`;

describe('compareRuns', () => {
  it('names a pass-then-fail test and a test gone from a failing run as regressions; a failing-before test apart', () => {
    const c = compareRuns('python -m pytest', run(BEFORE), run(AFTER));
    expect(c.passedBoth).toBe(1);
    expect(c.regressions).toEqual([
      { test: 'tests/test_a.py::test_two', lines: ["AssertionError: assert 'x' == 'y'"] },
      {
        test: 'tests/test_c.py::test_gone',
        lines: ['not reported after the fix (its module failed to load?)'],
      },
    ]);
    expect(c.failingBefore).toEqual(['tests/test_b.py::test_known']);
  });

  it('judges a command that names no test by its exit code alone', () => {
    const broke = compareRuns('make check', run('ok', 0), run('boom\nError 2', 2));
    expect(broke.regressions).toEqual([{ test: 'make check', lines: ['boom', 'Error 2'] }]);
    expect(compareRuns('make check', run('no', 2), run('no', 2)).failingBefore).toEqual(['make check']);
    expect(compareRuns('make check', run('ok', 0), run('ok', 0)).regressions).toEqual([]);
  });
});

describe("compareRuns on a plain `node --test` (node:test's spec report)", () => {
  const spec = (lines: string[], pass: number, fail: number) =>
    [...lines, `ℹ tests ${pass + fail}`, 'ℹ suites 0', `ℹ pass ${pass}`, `ℹ fail ${fail}`, ''].join('\n');
  const node = (stdout: string, exitCode: number) =>
    readSuiteRun({ stdout, stderr: '', exit_code: exitCode, timed_out: false }, 'javascript');
  // The repro fails on the base, so the command fails on both sides: only test by test is a
  // regression seen.
  const before = node(spec(['✖ add sums (1ms)', '✔ words splits (1ms)', '✔ words drops (1ms)'], 2, 1), 1);

  it('names a test that passed before and fails after, though the command failed on both sides', () => {
    const after = node(spec(['✔ add sums (1ms)', '✖ words splits (1ms)', '✔ words drops (1ms)'], 2, 1), 1);
    const c = compareRuns('node --test', before, after);
    expect(c.passedBoth).toBe(1);
    expect(c.regressions).toEqual([{ test: 'words splits', lines: ['failed'] }]);
    expect(c.failingBefore).toEqual([]);
  });

  it('a clean fix: every test that passed before passes after', () => {
    const after = node(spec(['✔ add sums (1ms)', '✔ words splits (1ms)', '✔ words drops (1ms)'], 3, 0), 0);
    expect(compareRuns('node --test', before, after)).toEqual({
      passedBoth: 2,
      regressions: [],
      failingBefore: [],
    });
  });
});

describe('compareRuns sees muting', () => {
  const before =
    'PASSED t.py::test_a\nPASSED t.py::test_b\nPASSED t.py::test_c\nPASSED t.py::test_d\n=== 4 passed in 0.1s ===';
  it('a test skipped, xfailed or gone after the fix is a regression, with how', () => {
    const after =
      'PASSED t.py::test_a\nSKIPPED t.py::test_b\nXFAIL t.py::test_c\n=== 1 passed, 1 skipped, 1 xfailed in 0.1s ===';
    const c = compareRuns('pytest', run(before, 0), run(after, 0));
    expect(c.passedBoth).toBe(1);
    expect(c.regressions.map((r) => [r.test, r.how])).toEqual([
      ['t.py::test_b', 'muted'],
      ['t.py::test_c', 'muted'],
      ['t.py::test_d', 'gone'],
    ]);
  });

  it('every test deselected after the fix: all gone, not clean', () => {
    const c = compareRuns('pytest', run(before, 0), run('=== 4 deselected in 0.1s ===', 0));
    expect(c.regressions.map((r) => r.how)).toEqual(['gone', 'gone', 'gone', 'gone']);
  });

  it('nothing ran on either side is no comparison, never clean', () => {
    const none = '=== no tests ran in 0.01s ===';
    const c = compareRuns('pytest --co', run(none, 0), run(none, 0));
    expect(c.notRun).toMatch(/no test ran and passed before or after the fix/);
    const counted = '=== 2 passed in 0.1s ===';
    const gone = compareRuns('pytest', run(counted, 0), run('=== 2 skipped in 0.1s ===', 0));
    expect(gone.regressions[0]).toMatchObject({ test: 'pytest', how: 'gone' });
  });
});

describe('affectedTestFiles', () => {
  it('keeps the test files that import a changed module (src layout and package forms too)', () => {
    const root = mkdtempSync(join(tmpdir(), 'piper-affected-'));
    const files: Record<string, string> = {
      'src/calc/__init__.py': '',
      'src/calc/ops.py': 'def add(a, b):\n    return a + b\n',
      'src/calc/fmt.py': '',
      'tests/test_ops.py': 'from calc.ops import add\n',
      'tests/test_pkg.py': 'from calc import ops as o\n',
      'tests/test_fmt.py': 'import calc.fmt\n',
      'tests/helper.py': 'import calc.ops\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    expect(affectedTestFiles(root, Object.keys(files), ['src/calc/ops.py'])).toEqual([
      'tests/test_ops.py',
      'tests/test_pkg.py',
    ]);
  });
});

describe('suiteLine', () => {
  const base: SuiteReport = {
    status: 'clean',
    command: 'python -m pytest',
    passed_both: 298,
    regressions: [],
    failing_before: [],
    base_cached: true,
    seconds: 1.2,
  };
  it('says what was compared, and never stays silent about what did not run', () => {
    expect(suiteLine(base)).toBe('suite: 298 passed before and after');
    expect(suiteLine({ ...base, status: 'partial', files: ['tests/test_a.py'], reason: 'over budget' })).toBe(
      'suite: partial — over budget; 298 passed before and after in 1 file(s)',
    );
    expect(suiteLine({ ...base, status: 'not_run', reason: 'the base run failed: x' })).toBe(
      'suite: not run — the base run failed: x',
    );
  });
});

describe('fixes with regressions (A/B)', () => {
  it('counts the judged instances whose suite lost a passing test; unjudged ones are left out', () => {
    const f = (suiteRegressions: string[] | null) => ({ suiteRegressions }) as unknown as InstanceFacts;
    const m = fixesWithRegressions([f(['t::a']), f([]), f(null), f([])]);
    expect(m).toMatchObject({ value: 1 / 3, of: { numerator: 1, denominator: 3 } });
    expect(fixesWithRegressions([f(null)]).value).toBeNull();
    expect(suiteRegressionsOf({ suite: { regressions: [{ test: 't::a', lines: [] }] } })).toEqual(['t::a']);
    expect(suiteRegressionsOf({ loop_state: {} })).toBeNull();
  });
});

describe('unittest suites', () => {
  it('asks python -m unittest for its verbose report, and reads it per test from stderr', () => {
    expect(verbose('python -m unittest discover -s tests')).toBe('python -m unittest -v discover -s tests');
    expect(verbose('python3 -m unittest -v')).toBe('python3 -m unittest -v');
    expect(verbose('make check')).toBe('make check');
    const stderr =
      'test_a (tests.test_x.T) ... ok\ntest_b (tests.test_x.T) ... FAIL\n\nRan 2 tests in 0.001s\n';
    const r = readSuiteRun({ stdout: '', stderr, exit_code: 1, timed_out: false });
    expect([...r.tests]).toEqual([
      ['test_a (tests.test_x.T)', 'PASSED'],
      ['test_b (tests.test_x.T)', 'FAILED'],
    ]);
  });
});
