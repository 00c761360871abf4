// The miner's pure parts: reading pytest's -rA summary, the two lists from two runs, the draft of
// what a failing test showed, the test/code split, and the leak check a problem statement must pass.
import { describe, expect, it } from 'vitest';
import { classify, observedFailure } from '../../eval/swebench/classify.js';
import { statementLeaks } from '../../eval/swebench/leaks.js';
import { isTestModule, isTestPath } from '../../eval/swebench/split.js';
import { parseSummary } from '../../runtime/test-output/pytest-summary.js';

const BEFORE = `============================= test session starts ==============================
collected 3 items

tests/test_a.py .F.                                                      [100%]

=================================== FAILURES ===================================
_________________________________ test_split[a b] _________________________________
tests/test_a.py:9: in test_split
    assert split("a;b") == ["a;", "b"]
E   AssertionError: assert ['a;b'] == ['a;', 'b']
=========================== short test summary info ============================
PASSED tests/test_a.py::test_one
FAILED tests/test_a.py::test_split[a b] - AssertionError: assert ['a;b'] == ['a;', 'b']
PASSED tests/test_a.py::TestX::test_two
========================= 1 failed, 2 passed in 0.05s ==========================`;

const AFTER = `PASSED tests/test_a.py::test_one
PASSED tests/test_a.py::test_split[a b]
FAILED tests/test_a.py::TestX::test_two - ValueError
PASSED tests/test_a.py::test_new`;

const PATCH = `diff --git a/pkg/core.py b/pkg/core.py
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -10,3 +10,4 @@ def _scan_tokens(text):
-    return text.split()
+    return [t for t in text.split(';') if t.strip()]
@@ -20,2 +21,4 @@ def split(sql):
+def _helper_added(x):
+    return x
diff --git a/CHANGELOG b/CHANGELOG
+* Fixed splitting of statements separated by semicolons.
`;
const TEST_PATCH = `diff --git a/tests/test_a.py b/tests/test_a.py
+    assert split("a;b") == ["a;", "b"]
`;

describe('the miner', () => {
  it('reads every outcome of the -rA summary, node ids with spaces and classes included', () => {
    expect([...parseSummary(BEFORE)]).toEqual([
      ['tests/test_a.py::test_one', 'PASSED'],
      ['tests/test_a.py::test_split[a b]', 'FAILED'],
      ['tests/test_a.py::TestX::test_two', 'PASSED'],
    ]);
  });

  it('F2P: passes after and not before (failing or absent); P2P: passes both; broken by the fix: neither', () => {
    expect(classify(parseSummary(BEFORE), parseSummary(AFTER))).toEqual({
      failToPass: ['tests/test_a.py::test_new', 'tests/test_a.py::test_split[a b]'],
      passToPass: ['tests/test_a.py::test_one'],
    });
  });

  it("drafts the first F2P test's failure section", () => {
    const draft = observedFailure(BEFORE, ['tests/test_a.py::test_split[a b]']);
    expect(draft).toContain("E   AssertionError: assert ['a;b'] == ['a;', 'b']");
    expect(draft).not.toContain('short test summary');
  });

  it("splits as SWE-bench does: test directories and test modules are the test patch's", () => {
    expect(
      ['tests/x.py', 'testing/conftest.py', 'test_iniconfig.py', 'pkg/a_test.py'].every(isTestPath),
    ).toBe(true);
    expect(['pkg/core.py', 'CHANGELOG', 'pkg/testing_utils.py'].some(isTestPath)).toBe(false);
    expect(isTestModule('tests/conftest.py')).toBe(false);
    expect(isTestModule('tests/test_x.py')).toBe(true);
  });
});

describe('the leak check of a problem statement', () => {
  it('passes a statement written from outside, naming the API the tests call', () => {
    expect(
      statementLeaks('split("a;b") returns ["a;b"], expected two statements.', PATCH, TEST_PATCH),
    ).toEqual([]);
  });

  it('catches a quoted added line and a changed internal function, old or new', () => {
    const leaks = statementLeaks(
      "Maybe return [t for t in text.split(';') if t.strip()] in _scan_tokens, or add _helper_added.",
      PATCH,
      TEST_PATCH,
    );
    expect(leaks).toEqual([
      "quotes the gold patch's line: return [t for t in text.split(';') if t.strip()]",
      'names the changed function _scan_tokens',
      'names the changed function _helper_added',
    ]);
  });

  it("ignores the patch's non-Python files (a CHANGELOG line is no code)", () => {
    expect(
      statementLeaks('* Fixed splitting of statements separated by semicolons.', PATCH, TEST_PATCH),
    ).toEqual([]);
  });
});
