// A suite's counts from its runner's own closing summary: pytest's (`=== 1 failed, 2 passed, 1
// skipped in 0.12s ===`, or `-q`'s bare form; `no tests ran in 0.01s`, and a listing's
// `3 tests collected in 0.01s`, are counts of nothing run) on stdout, else unittest's (`Ran 12 tests
// in 0.003s` then `OK (skipped=3)` / `FAILED (failures=1, errors=2, skipped=3)`), which it writes
// to stderr. What they make of a run's verdict is test-verdict.ts's.
import type { LanguageId } from '../language/language.js';
import { withoutColors } from '../text/terminal-colors.js';
import { readJsOutput } from './js/js-output.js';
import type { TestCounts } from './test-counts.js';

export type { TestCounts };

/**
 * The counts, also of a run that coloured its output. A JavaScript project's run is read by its
 * runners' readers alone (js/js-output.ts), a Python project's by pytest's and unittest's, so a
 * summary of the other language a test prints is no summary.
 */
export function testCounts(
  stdout: string,
  stderr: string,
  language: LanguageId = 'python',
): TestCounts | undefined {
  if (language === 'javascript') return readJsOutput(stdout, stderr).counts;
  const [out, err] = [withoutColors(stdout), withoutColors(stderr)];
  return pytestCounts(out) ?? unittestCounts(err) ?? unittestCounts(out);
}

const PYTEST_SUMMARY =
  /\b\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)\b.* in [\d.]+s|\bno tests ran in [\d.]+s|\b\d+ tests? collected in [\d.]+s/;

/** pytest's closing summary, the last one in the output. */
export function pytestCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.trimEnd().split('\n').reverse();
  const summary = lines.find((l) => PYTEST_SUMMARY.test(l));
  if (!summary) return undefined;
  if (/\btests? collected in\b/.test(summary)) return { passed: 0, failed: 0, errors: 0, skipped: 0 };
  const count = (word: RegExp) => Number(new RegExp(`(\\d+) ${word.source}`).exec(summary)?.[1] ?? 0);
  return {
    passed: count(/passed/),
    // An unexpected pass of a strict xfail is reported failed; a plain xpass is not a failure.
    failed: count(/failed/),
    errors: count(/errors?\b/),
    skipped: count(/skipped/),
  };
}

/**
 * unittest's summary: the last `Ran N test(s) in Ts` and the verdict line after it. Passed is what
 * ran minus failures, errors and skips; an expected failure counts as passed (it is not a failure
 * of the suite), an unexpected success as failed (unittest fails the run for it).
 */
export function unittestCounts(text: string): TestCounts | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  let at = -1;
  for (let i = lines.length - 1; i >= 0 && at < 0; i--)
    if (/^Ran \d+ tests? in [\d.]+s$/.test(lines[i]!)) at = i;
  if (at < 0) return undefined;
  const ran = Number(/^Ran (\d+)/.exec(lines[at]!)![1]);
  const verdict = lines.slice(at + 1).find((l) => /^(OK|FAILED|NO TESTS RAN)\b/.test(l));
  if (verdict === undefined) return undefined;
  const count = (key: string) => Number(new RegExp(`\\b${key}=(\\d+)`).exec(verdict)?.[1] ?? 0);
  const failed = count('failures') + count('unexpected successes');
  const errors = count('errors');
  const skipped = count('skipped');
  const expected = count('expected failures');
  // An expected failure is not a test that passed: it is told apart so "all xfailed" is no pass.
  const finished = ran - failed - errors - expected;
  // More skips than tests that finished: the skips count subtests (a subTest that skipped), whose
  // test ran and finished; only whole tests skipped are taken from the passes then, and those are
  // unknown, so the tests that finished stand.
  const passed = skipped > finished ? finished : finished - skipped;
  return { passed: Math.max(0, passed), failed, errors, skipped };
}

/** pytest's other counts, for saying why a run that exited 0 is no pass: `3 xfailed, 2 deselected`. */
export function otherCounts(stdout: string): string {
  const lines = withoutColors(stdout).trimEnd().split('\n').reverse();
  const summary = lines.find((l) => PYTEST_SUMMARY.test(l)) ?? '';
  if (/\btests? collected in\b/.test(summary)) return 'a listing of tests, none run';
  return [...summary.matchAll(/(\d+) (skipped|deselected|xfailed|xpassed)\b/g)]
    .map((m) => `${m[1]} ${m[2]}`)
    .join(', ');
}
