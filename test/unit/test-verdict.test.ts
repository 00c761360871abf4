// The one reader of test output and the verdict it gives: a pass means tests ran and passed, by
// piper's own counts, whatever the exit code; FAILED and ERROR are never overwritten by a later line.
import { describe, expect, it } from 'vitest';
import { parseTestOutcomes } from '../../runtime/test-output/outcomes.js';
import { pytestCounts, unittestCounts } from '../../runtime/test-output/counts.js';
import { testVerdict } from '../../runtime/test-output/test-verdict.js';
import { shellArgv } from '../../primitives/tools/run-test/effect.js';

const ok = (stdout: string, stderr = '') => ({ stdout, stderr, exit_code: 0, timed_out: false });

describe('the readers keep a failure whatever comes after it', () => {
  it('pytest: an XFAIL or SKIPPED line after the summary does not replace FAILED or ERROR', () => {
    const out = [
      'FAILED tests/test_a.py::test_x - assert 1 == 2',
      'ERROR tests/test_a.py::test_y - fixture boom',
      '==== 1 failed, 1 error in 0.10s ====',
      'XFAIL tests/test_a.py::test_x',
      'SKIPPED tests/test_a.py::test_y',
      'PASSED tests/test_a.py::test_x',
    ].join('\n');
    const words = parseTestOutcomes('pytest', out);
    expect(words.get('tests/test_a.py::test_x')).toBe('FAILED');
    expect(words.get('tests/test_a.py::test_y')).toBe('ERROR');
  });

  it('unittest and Django: an `ok` or `skipped` printed later does not replace FAIL', () => {
    const out = [
      'test_a (pkg.tests.T) ... FAIL',
      'test_a (pkg.tests.T) ... ok',
      'test_b (pkg.tests.T) ... ERROR',
      'test_b (pkg.tests.T) ... skipped "later"',
      '',
      'Ran 2 tests in 0.01s',
      'FAILED (failures=1, errors=1)',
    ].join('\n');
    const words = parseTestOutcomes('unittest', out);
    expect(words.get('test_a (pkg.tests.T)')).toBe('FAILED');
    expect(words.get('test_b (pkg.tests.T)')).toBe('ERROR');
  });

  it('sympy: a later `ok` for a failed function does not replace F', () => {
    const out = ['sympy/core/tests/test_x.py[2]', 'test_one F', 'test_one ok', 'test_two ok [FAIL]'].join(
      '\n',
    );
    const words = parseTestOutcomes('sympy', out);
    expect(words.get('test_one')).toBe('FAILED');
    expect(words.get('test_two')).toBe('PASSED');
  });
});

describe('pytest: only the short test summary block is read where there is one', () => {
  it('a word printed after the closing line does not count, on either side', () => {
    const out = [
      '=========================== short test summary info ============================',
      'PASSED tests/test_r.py::test_a',
      'FAILED tests/test_r.py::test_b - assert 0',
      '========================= 1 failed, 1 passed in 0.03s ==========================',
      'XFAIL tests/test_r.py::test_a',
      'PASSED tests/test_r.py::test_c',
    ].join('\n');
    const words = parseTestOutcomes('pytest', out);
    expect([...words]).toEqual([
      ['tests/test_r.py::test_a', 'PASSED'],
      ['tests/test_r.py::test_b', 'FAILED'],
    ]);
  });

  it('a forged block after the real one cannot drop a FAILED the real one names', () => {
    const header = '=========================== short test summary info ============================';
    const out = [
      header,
      'FAILED tests/test_r.py::test_b - assert 0',
      '==================== 1 failed in 0.03s ====================',
      header,
      'PASSED tests/test_r.py::test_b',
      '==================== 1 passed in 0.03s ====================',
    ].join('\n');
    expect(parseTestOutcomes('pytest', out).get('tests/test_r.py::test_b')).toBe('FAILED');
  });
});

describe('counts', () => {
  it('pytest: a listing and `no tests ran` are counts of nothing run, not unknown', () => {
    expect(pytestCounts('==== 3 tests collected in 0.01s ====')).toEqual({
      passed: 0,
      failed: 0,
      errors: 0,
      skipped: 0,
    });
    expect(pytestCounts('==== no tests ran in 0.01s ====')?.passed).toBe(0);
    expect(pytestCounts('==== 2 deselected in 0.01s ====')?.passed).toBe(0);
  });

  it('unittest: expected failures are not passes', () => {
    expect(unittestCounts('Ran 2 tests in 0.001s\n\nOK (expected failures=2)')?.passed).toBe(0);
    expect(unittestCounts('Ran 3 tests in 0.001s\n\nOK (skipped=1)')?.passed).toBe(2);
    // Skipped subtests outnumber the tests: the tests ran and finished.
    expect(unittestCounts('Ran 197 tests in 0.5s\n\nOK (skipped=276)')?.passed).toBe(197);
  });
});

describe('testVerdict', () => {
  it('a run where tests ran and passed is a pass', () => {
    expect(testVerdict(ok('==== 2 passed in 0.10s ====')).pass).toBe(true);
    expect(testVerdict(ok('', 'Ran 2 tests in 0.001s\n\nOK\n')).pass).toBe(true);
  });

  it.each([
    [
      'a listing (--co)',
      '==== 3 tests collected in 0.01s ====',
      /no test passed \(a listing of tests, none run\)/,
    ],
    ['--setup-plan / --fixtures', '==== no tests ran in 0.01s ====', /no test passed: no test ran/],
    ['every test skipped', '==== 1 skipped in 0.01s ====', /no test passed \(1 skipped\)/],
    ['every test xfailed', '==== 2 xfailed in 0.01s ====', /no test passed \(2 xfailed\)/],
    ['every test deselected', '==== 3 deselected in 0.01s ====', /no test passed \(3 deselected\)/],
    ['a masked failure', '==== 1 failed, 2 passed in 0.1s ====', /1 failed.*under exit code 0/],
    ['no summary at all (os._exit(0))', 'collecting ...', /counts unknown/],
    [
      'a failure named after a passing summary',
      'FAILED t.py::test_a - x\n==== 1 passed in 0.1s ====',
      /names t\.py::test_a as failed/,
    ],
  ])('%s is no pass under exit code 0', (_name, stdout, why) => {
    const verdict = testVerdict(ok(stdout));
    expect(verdict.pass).toBe(false);
    if (!verdict.pass) expect(verdict.why).toMatch(why);
  });

  it('a non-zero exit or a timeout is no pass, whatever the counts say', () => {
    expect(testVerdict({ ...ok('==== 1 passed in 0.1s ===='), exit_code: 1 }).pass).toBe(false);
    expect(testVerdict({ ...ok('==== 1 passed in 0.1s ===='), timed_out: true }).pass).toBe(false);
  });
});

describe('shell-string test commands', () => {
  it('run with pipefail where bash exists, so a pipe cannot mask the runner', () => {
    const argv = shellArgv('pytest | tee log');
    expect(argv.slice(0, 2)).toEqual(['sh', '-c']);
    expect(argv[2]).toContain('bash -o pipefail -c "$1"');
    expect(argv.at(-1)).toBe('pytest | tee log');
  });
});
