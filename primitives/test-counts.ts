// A suite's counts from its runner's own closing summary: pytest's (`=== 1 failed, 2 passed, 1
// skipped in 0.12s ===`, or `-q`'s bare form) on stdout, else unittest's (`Ran 12 tests in
// 0.003s` then `OK (skipped=3)` / `FAILED (failures=1, errors=2, skipped=3)`), which it writes to
// stderr. Counts describe the run; the verdict is still the exit code alone.
import { withoutColors } from '../runtime/text/terminal-colors.js';
import type { PytestCounts } from './results/sandbox-results.js';

/** The counts, also of a run that coloured its output. */
export function testCounts(stdout: string, stderr: string): PytestCounts | undefined {
  const [out, err] = [withoutColors(stdout), withoutColors(stderr)];
  return pytestCounts(out) ?? unittestCounts(err) ?? unittestCounts(out);
}

/** pytest's closing summary, the last one in the output. */
export function pytestCounts(stdout: string): PytestCounts | undefined {
  const lines = stdout.trimEnd().split('\n').reverse();
  const summary = lines.find((l) =>
    /\b\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed)\b.* in [\d.]+s/.test(l),
  );
  if (!summary) return undefined;
  const count = (word: RegExp) => Number(new RegExp(`(\\d+) ${word.source}`).exec(summary)?.[1] ?? 0);
  return {
    passed: count(/passed/),
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
export function unittestCounts(text: string): PytestCounts | undefined {
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
  return { passed: Math.max(0, ran - failed - errors - skipped), failed, errors, skipped };
}
