// The readers of runtime/test-output on real output of real runs (test/fixtures/test-output, its
// README says how each was made): unittest's verbose report under Python 3.9 and 3.11 (the form
// Django's runner prints at --verbosity 2), sympy's bin/test -C --verbose; and parseTestOutcomes
// choosing the reader by the runner's kind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTestOutcomes } from '../../runtime/test-output/outcomes.js';
import { parseSympyVerbose } from '../../runtime/test-output/sympy-verbose.js';
import { parseUnittestVerbose, unittestId } from '../../runtime/test-output/unittest-verbose.js';

const OUTPUT = join(__dirname, '../fixtures/test-output');
const read = (name: string) => readFileSync(join(OUTPUT, name), 'utf8');

const UNITTEST = {
  'test_broken (test_shapes.AreaTests)': 'ERROR',
  'The area of a rectangle is its width times its height.': 'PASSED',
  'test_fixed_bug (test_shapes.AreaTests)': 'XPASS',
  'test_known_bug (test_shapes.AreaTests)': 'XFAIL',
  'test_noisy (test_shapes.AreaTests)': 'PASSED',
  'test_skipped (test_shapes.AreaTests)': 'SKIPPED',
  'test_square (test_shapes.AreaTests)': 'PASSED',
  'test_wrong (test_shapes.AreaTests)': 'FAILED',
};

describe('parseUnittestVerbose', () => {
  it.each(['unittest-v-py3.9.txt', 'unittest-v-py3.11.txt'])(
    'reads every test of %s by the id SWE-bench writes, a docstring first line for a documented test',
    (file) => {
      expect(Object.fromEntries(parseUnittestVerbose(read(file)))).toEqual(UNITTEST);
    },
  );

  it("reads Django's runner at --verbosity 2 in the sandbox (the Django-style fixture before its fix)", () => {
    expect(Object.fromEntries(parseUnittestVerbose(read('django-runtests-v2-before.txt')))).toEqual({
      'test_saved (shapes_tests.tests.ShapeModelTests)': 'PASSED',
      'The area of a rectangle is its width times its height.': 'FAILED',
      // The failure listing's header names the test, not its docstring.
      'test_rectangle_area (shapes_tests.tests.AreaTests)': 'FAILED',
      'test_square_area (shapes_tests.tests.AreaTests)': 'FAILED',
      'test_negative (shapes_tests.tests.PerimeterTests)': 'XFAIL',
      'test_noisy (shapes_tests.tests.PerimeterTests)': 'PASSED',
      "A rectangle's perimeter counts each side twice.": 'PASSED',
      'test_skipped (shapes_tests.tests.PerimeterTests)': 'SKIPPED',
      'test_square (shapes_tests.tests.PerimeterTests)': 'PASSED',
    });
  });

  it("reads a word that follows a test's own output on a later line, and keeps the worse of two reports", () => {
    const out = parseUnittestVerbose(
      [
        'test_a (app.tests.T) ... Creating table x',
        'System check identified no issues (0 silenced).',
        'ok',
        'test_b (app.tests.T) ... ok',
        'ERROR: test_b (app.tests.T)',
      ].join('\n'),
    );
    expect(Object.fromEntries(out)).toEqual({
      'test_a (app.tests.T)': 'PASSED',
      'test_b (app.tests.T)': 'ERROR',
    });
  });

  it('drops the method name Python 3.11 repeats, and only that', () => {
    expect(unittestId('test_x (a.b.C.test_x)')).toBe('test_x (a.b.C)');
    expect(unittestId('test_x (a.b.C)')).toBe('test_x (a.b.C)');
    expect(unittestId('test_x (a.b.C.other)')).toBe('test_x (a.b.C.other)');
  });
});

describe('parseSympyVerbose', () => {
  it("reads sympy's verbose report by bare names, the file's [FAIL] mark on the last test's line", () => {
    expect(Object.fromEntries(parseSympyVerbose(read('sympy-bin-test-host.txt')))).toEqual({
      test_quadratic: 'PASSED',
      test_linear: 'PASSED',
      test_named_variable: 'XFAIL',
      test_complex_pair: 'FAILED',
      test_cubic: 'PASSED',
    });
  });

  it('reads a real Verified instance run in the sandbox (sympy__sympy-23950, before and with the gold patch)', () => {
    const ids = ['test_contains_basic', 'test_issue_6194', 'test_issue_10326', 'test_binary_symbols'];
    const passed = Object.fromEntries(ids.map((id) => [id, 'PASSED']));
    expect(Object.fromEntries(parseSympyVerbose(read('sympy-23950-before.txt')))).toEqual({
      ...passed,
      test_as_set: 'ERROR',
      test_type_error: 'PASSED',
    });
    expect(Object.fromEntries(parseSympyVerbose(read('sympy-23950-gold.txt')))).toEqual({
      ...passed,
      test_as_set: 'PASSED',
      test_type_error: 'PASSED',
    });
  });

  it('reads errors, unexpected passes and skips with their reasons', () => {
    const out = parseSympyVerbose(
      ['test_a E', 'test_b X', 'test_c Slow w', 'test_d  - s', 'test_e ok   [OK]'].join('\n'),
    );
    expect(Object.fromEntries(out)).toEqual({
      test_a: 'ERROR',
      test_b: 'XPASS',
      test_c: 'SKIPPED',
      test_d: 'SKIPPED',
      test_e: 'PASSED',
    });
  });
});

describe('parseTestOutcomes', () => {
  it("chooses the reader by the runner's kind", () => {
    const sympy = read('sympy-bin-test-host.txt');
    expect(parseTestOutcomes('sympy', sympy).get('test_complex_pair')).toBe('FAILED');
    expect(parseTestOutcomes('unittest', sympy).size).toBe(0);
    expect(parseTestOutcomes('pytest', 'PASSED t.py::test_a\n').get('t.py::test_a')).toBe('PASSED');
  });
});
