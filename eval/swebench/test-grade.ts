// Per-test outcomes of a test run, read by the reader of its runner (runtime/test-output: pytest's
// `-rA` summary, unittest's and Django's verbose report, sympy's `bin/test --verbose`), as the
// public SWE-bench harness reads its logs: a test the output does not name is `missing`, which
// grades like a failure.
import { parseTestOutcomes, type RunnerKind } from '../../runtime/test-output/outcomes.js';
import type { SummaryWord } from '../../runtime/test-output/pytest-summary.js';
import { parseStatusTokens } from '../../runtime/test-output/status-tokens.js';

export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped' | 'missing';

/**
 * As the harness grades: an expected failure that failed passes (its test_passed takes PASSED and
 * XFAIL), and an unexpected pass is neither a pass nor a failure, as a skip is.
 */
const STATUS: Record<SummaryWord, TestStatus> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'error',
  SKIPPED: 'skipped',
  XFAIL: 'passed',
  XPASS: 'skipped',
};

/**
 * Whether a status fails an instance, as the harness's test_failed says: failed, error, or not in
 * the output at all. A skipped test neither passes nor fails: the harness leaves it out of both
 * counts (a suite that skips a test without its optional module is not broken by that).
 */
export function failing(status: TestStatus | undefined): boolean {
  return status === undefined || status === 'failed' || status === 'error' || status === 'missing';
}

/**
 * Each test id the output names, with its status (a test reported twice keeps its worse one). For
 * pytest, also the words the harness takes for ids (status-tokens.ts) among those `named` (the
 * instance's ids): a status line's second word names a test only when the dataset says it does.
 */
export function parseOutcomes(
  stdout: string,
  runner: RunnerKind = 'pytest',
  named: readonly string[] = [],
): Map<string, TestStatus> {
  const words = parseTestOutcomes(runner, stdout);
  if (runner === 'pytest' && named.some((id) => !words.has(id))) {
    const tokens = parseStatusTokens(stdout);
    const paths = pathOptionIds(words);
    for (const id of named) {
      if (words.has(id)) continue;
      const word = tokens.get(id) ?? paths.get(id);
      if (word) words.set(id, word);
    }
  }
  return new Map([...words].map(([id, word]) => [id, STATUS[word]]));
}

/**
 * The ids as the harness's parser for suites parametrized over paths (requests', pylint's:
 * parse_log_pytest_options) writes them: an option that is an absolute path keeps only its last
 * segment (`test_stdin[/work/tests/mymodule.py-mymodule-/work/tests/mymodule.py]` is
 * `test_stdin[/mymodule.py]`), so the dataset's ids do not depend on where the tree was checked
 * out. The later of two ids that read alike wins, as in the harness.
 */
function pathOptionIds(words: ReadonlyMap<string, SummaryWord>): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  for (const [id, word] of words) {
    // The harness's `(.*?)\[(.*)\]`: up to the first `[`, then up to the last `]` — found by index,
    // not by backtracking, since an id is the sandbox's output.
    const open = id.indexOf('[');
    const close = id.lastIndexOf(']');
    if (open < 0 || close < open) continue;
    const option = id.slice(open + 1, close);
    if (!option.startsWith('/') || option.startsWith('//') || option.includes('*')) continue;
    out.set(`${id.slice(0, open)}[/${option.split('/').pop()}]`, word);
  }
  return out;
}

/**
 * The status of `id`. The harness splits a pytest summary line at whitespace, so an instance names
 * a parametrized test whose id holds a space by the id's first word: a reported id whose first
 * word is `id` answers for it when none is exactly `id`.
 */
function statusOf(reported: Map<string, TestStatus>, id: string, only: boolean): TestStatus {
  const exact = reported.get(id);
  if (exact !== undefined || only || /\s/.test(id)) return exact ?? 'missing';
  for (const [full, status] of reported) if (/\s/.test(full) && full.split(/\s/)[0] === id) return status;
  return 'missing';
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
  /** No FAIL_TO_PASS or PASS_TO_PASS test failed (skipped ones count neither way). */
  resolved: boolean;
}

/**
 * The public harness's rule: resolved iff no FAIL_TO_PASS and no PASS_TO_PASS test fails — every
 * one passed, or was skipped, which its report counts as neither a success nor a failure. `exact`:
 * each id is looked up as it is (a JavaScript parser's names hold spaces of their own).
 */
export function grade(
  reported: Map<string, TestStatus>,
  failToPass: readonly string[],
  passToPass: readonly string[],
  exact = false,
): Graded {
  const tests: Record<string, TestStatus> = {};
  for (const id of [...failToPass, ...passToPass]) tests[id] = statusOf(reported, id, exact);
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
    resolved: ![...failToPass, ...passToPass].some((id) => failing(tests[id])),
  };
}
