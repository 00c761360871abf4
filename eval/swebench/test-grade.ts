// Per-test outcomes of a pytest run, read from its `-rA` short summary ("PASSED tests/x.py::t",
// "FAILED tests/x.py::t[a b] - AssertionError"), as the public SWE-bench harness reads its logs: a
// test the summary does not name is `missing`, which grades like a failure.
import { parseSummary, type SummaryWord } from '../../runtime/test-output/pytest-summary.js';

export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped' | 'missing';

const STATUS: Record<SummaryWord, TestStatus> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'error',
  SKIPPED: 'skipped',
  XFAIL: 'failed',
  XPASS: 'failed',
};

/** Each test id the summary names, with its status (a test reported twice keeps its worse one). */
export function parseOutcomes(stdout: string): Map<string, TestStatus> {
  return new Map([...parseSummary(stdout)].map(([id, word]) => [id, STATUS[word]]));
}

/** The command that runs exactly these tests with the summary we parse; ids are shell-quoted. */
export function pytestTarget(ids: readonly string[]): string {
  const quoted = ids.map((id) => `'${id.replace(/'/g, `'\\''`)}'`);
  // -rA lists every test's outcome; the cache plugin would only write into the work tree.
  return `python3 -m pytest -rA -p no:cacheprovider ${quoted.join(' ')}`;
}

export interface Graded {
  tests: Record<string, TestStatus>;
  failToPass: { passed: number; total: number };
  passToPass: { passed: number; total: number };
  /** Every FAIL_TO_PASS and PASS_TO_PASS test passed. */
  resolved: boolean;
}

/** The public harness's rule: resolved iff every FAIL_TO_PASS and every PASS_TO_PASS test passes. */
export function grade(
  reported: Map<string, TestStatus>,
  failToPass: readonly string[],
  passToPass: readonly string[],
): Graded {
  const tests: Record<string, TestStatus> = {};
  for (const id of [...failToPass, ...passToPass]) tests[id] = reported.get(id) ?? 'missing';
  const count = (list: readonly string[]) => ({
    passed: list.filter((id) => tests[id] === 'passed').length,
    total: list.length,
  });
  const f2p = count(failToPass);
  const p2p = count(passToPass);
  return {
    tests,
    failToPass: f2p,
    passToPass: p2p,
    resolved: f2p.passed === f2p.total && p2p.passed === p2p.total,
  };
}
