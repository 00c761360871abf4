// Failed tests' names and first assertion lines, read from the tail of real pytest output.
import { describe, expect, it } from 'vitest';
import { failuresField, testFailures } from '../../policy/test-failures.js';

const PYTEST = `=================================== FAILURES ===================================
________________________ test_top_words_returns_n_words ________________________

    def test_top_words_returns_n_words():
>       assert top_words("a a b b c", n=2) == ["a", "b"]
E       AssertionError: assert ['a'] == ['a', 'b']
E         
E         Right contains one more item: 'b'

tests/test_words.py:9: AssertionError
____________________________ TestReport.test_sum[2] ____________________________

>       assert summary("x") == 2
E       assert 1 == 2

tests/test_report.py:13: AssertionError
=========================== short test summary info ============================
FAILED tests/test_words.py::test_top_words_returns_n_words - AssertionError: ...
FAILED tests/test_report.py::TestReport::test_sum[2] - assert 1 == 2
========================= 2 failed, 1 passed in 0.05s ==========================`;

describe('testFailures', () => {
  it('names each failed node id with the first E line of its section', () => {
    expect(testFailures(PYTEST)).toEqual([
      {
        test: 'tests/test_words.py::test_top_words_returns_n_words',
        line: "AssertionError: assert ['a'] == ['a', 'b']",
      },
      { test: 'tests/test_report.py::TestReport::test_sum[2]', line: 'assert 1 == 2' },
    ]);
  });

  it('keeps a name whose section was cut from the tail, and reads sections when the summary is gone', () => {
    const cut = PYTEST.split('\n').slice(9).join('\n');
    expect(testFailures(cut)[0]).toEqual({ test: 'tests/test_words.py::test_top_words_returns_n_words' });
    const noSummary = PYTEST.split('\n').slice(0, 17).join('\n');
    expect(testFailures(noSummary).map((f) => f.test)).toEqual([
      'test_top_words_returns_n_words',
      'TestReport.test_sum[2]',
    ]);
  });

  it('is carried only by a test observation that did not pass', () => {
    expect(failuresField('test', { passed: false, output: PYTEST }).failures).toHaveLength(2);
    expect(failuresField('test', { passed: true, output: PYTEST })).toEqual({});
    expect(failuresField('execute', { passed: false, output: PYTEST })).toEqual({});
    expect(failuresField('test', { passed: false, output: 'sh: make: not found' })).toEqual({});
  });
});
