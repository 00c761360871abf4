// Whether a test run is a pass: tests ran and passed, by piper's own reading of the runner's output,
// whatever the exit code says. An exit code of 0 is necessary, never enough: a listing-only option
// (`--co`, `--setup-plan`), a status masked by a pipe or `|| true`, a process gone before its
// runner's summary (`os._exit(0)`), every test skipped, xfailed or deselected, or a failure named in
// the output all exit 0 and none is a pass. Where no runner's counts can be read, the verdict says
// "counts unknown" rather than claim a pass. The one rule every verdict in piper reads: run_test's
// trust check, the run's `verified`, the as-written repro run and the regression gate.
import type { LanguageId } from '../language/language.js';
import { withoutColors } from '../text/terminal-colors.js';
import { otherCounts, testCounts, type TestCounts } from './counts.js';
import { readJsOutput } from './js/js-output.js';
import { parseTestOutcomes } from './outcomes.js';

export interface TestReceipt {
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out: boolean;
}

export type TestVerdict =
  { pass: true; counts: TestCounts } | { pass: false; why: string; counts?: TestCounts };

/** The verdict on a run of a project in `language` (its runners' output is read, no other's). */
export function testVerdict(receipt: TestReceipt, language: LanguageId = 'python'): TestVerdict {
  if (receipt.timed_out) return { pass: false, why: 'the run timed out' };
  const counts = testCounts(receipt.stdout, receipt.stderr, language);
  const withCounts = counts ? { counts } : {};
  if (receipt.exit_code !== 0) return { pass: false, why: `exit code ${receipt.exit_code}`, ...withCounts };
  if (!counts)
    return {
      pass: false,
      why: 'counts unknown: the output has no test runner summary (none ran, or the process ended before its summary)',
    };
  const broken = counts.failed + counts.errors;
  if (broken > 0)
    return { pass: false, why: `${countText(counts)} under exit code 0 (the status was masked)`, counts };
  const named = namedFailure(receipt, language);
  if (named) return { pass: false, why: `the output names ${named} as failed under exit code 0`, counts };
  if (counts.passed === 0) {
    const other = language === 'python' ? otherCounts(receipt.stdout) : '';
    const rest = other || (counts.skipped ? `${counts.skipped} skipped` : '');
    return { pass: false, why: `no test passed${rest ? ` (${rest})` : ': no test ran'}`, counts };
  }
  return { pass: true, counts };
}

/** `1 passed, 2 failed, 0 errors`: how every verdict line writes counts. */
export function countText(c: TestCounts): string {
  const skipped = c.skipped ? `, ${c.skipped} skipped` : '';
  return `${c.passed} passed, ${c.failed} failed, ${c.errors} errors${skipped}`;
}

/** The first test the runner's report names FAILED or ERROR (pytest's or unittest's for Python), or null. */
function namedFailure(receipt: TestReceipt, language: LanguageId): string | null {
  if (language === 'javascript') {
    for (const [id, word] of readJsOutput(receipt.stdout, receipt.stderr).outcomes)
      if (word === 'FAILED' || word === 'ERROR') return id;
    return null;
  }
  const stdout = withoutColors(receipt.stdout);
  const both = `${withoutColors(receipt.stderr)}\n${stdout}`;
  for (const outcomes of [parseTestOutcomes('pytest', stdout), parseTestOutcomes('unittest', both)])
    for (const [id, word] of outcomes) if (word === 'FAILED' || word === 'ERROR') return id;
  return null;
}
