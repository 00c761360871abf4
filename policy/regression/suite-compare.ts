// The regression gate's rule, pure: a test that passed on the base snapshot and fails or errors on
// the final one is a regression; so is one muted after (skipped, xfailed) or gone (deleted, renamed,
// deselected: not reported by a final run that otherwise succeeded). One that failed before and
// still fails is the project's, reported apart. Per test when the output names its tests (pytest's
// summary lines, runtime/test-output/); otherwise the command is the one test there is, a pass on
// each side only when tests ran and passed by the counts (test-verdict.ts): nothing run on either
// side is no comparison (`not_run`), never a clean suite.
import type { SummaryWord } from '../../runtime/test-output/pytest-summary.js';
import type { TestVerdict } from '../../runtime/test-output/test-verdict.js';
import type { Regression } from './suite-report.js';

/** One run of the suite: its per-test words, exit code, and the first lines of each failure. */
export interface SuiteRun {
  tests: ReadonlyMap<string, SummaryWord>;
  exitCode: number;
  timedOut: boolean;
  failureLines: ReadonlyMap<string, string[]>;
  /** The end of the output: the failure's lines when no test is named. */
  tail: string;
  /** Whether tests ran and passed by the counts; absent: judged by the exit code alone. */
  verdict?: TestVerdict;
}

export interface SuiteComparison {
  passedBoth: number;
  regressions: Regression[];
  failingBefore: string[];
  /** No comparison could be made (nothing ran on either side): why. */
  notRun?: string;
}

const MUTED: Partial<Record<SummaryWord, string>> = {
  SKIPPED: 'skipped after the fix',
  XFAIL: 'marked xfail after the fix',
  XPASS: 'marked xfail after the fix',
};

const BROKEN: ReadonlySet<SummaryWord> = new Set(['FAILED', 'ERROR']);

export function compareRuns(command: string, before: SuiteRun, after: SuiteRun): SuiteComparison {
  if (before.tests.size === 0) return wholeCommand(command, before, after);
  const regressions: Regression[] = [];
  const failingBefore: string[] = [];
  let passedBoth = 0;
  for (const [test, word] of before.tests) {
    const now = after.tests.get(test);
    if (word === 'PASSED') {
      if (now === 'PASSED') passedBoth += 1;
      else if (brokeAfter(now, after)) regressions.push({ test, lines: linesOf(test, now, after) });
      else if (now !== undefined && MUTED[now]) regressions.push({ test, how: 'muted', lines: [MUTED[now]] });
      else if (now === undefined)
        regressions.push({
          test,
          how: 'gone',
          lines: ['not run after the fix: deleted, renamed or deselected'],
        });
    } else if (BROKEN.has(word) && (now === undefined || BROKEN.has(now))) failingBefore.push(test);
  }
  return { passedBoth, regressions, failingBefore };
}

/**
 * Failed or errored after; a test the final run did not report at all counts when that run failed
 * (its module no longer imports: pytest names the file, not the test) or was killed.
 */
function brokeAfter(now: SummaryWord | undefined, after: SuiteRun): boolean {
  if (now !== undefined) return BROKEN.has(now);
  return after.timedOut || after.exitCode !== 0;
}

function linesOf(test: string, now: SummaryWord | undefined, after: SuiteRun): string[] {
  const known = after.failureLines.get(test);
  if (known?.length) return known;
  if (now === undefined)
    return [
      after.timedOut
        ? 'not reported: the suite timed out after the fix'
        : 'not reported after the fix (its module failed to load?)',
    ];
  return [now === 'ERROR' ? 'errored' : 'failed'];
}

/**
 * No test named on the base: the command is the one test. A failure is judged by the exit code; a
 * clean suite needs tests that ran and passed after the fix by the counts. A base whose tests ran
 * and passed and a final run where none did is a regression (gone); nothing run and passed on
 * either side, or counts unknown on both, is no comparison.
 */
function wholeCommand(command: string, before: SuiteRun, after: SuiteRun): SuiteComparison {
  const exitedBefore = before.exitCode === 0 && !before.timedOut;
  const exitedAfter = after.exitCode === 0 && !after.timedOut;
  const none = { passedBoth: 0, regressions: [], failingBefore: [] };
  if (!exitedBefore) return { ...none, failingBefore: exitedAfter ? [] : [command] };
  if (!exitedAfter) return { ...none, regressions: [{ test: command, lines: lastLines(after.tail) }] };
  if (after.verdict === undefined || after.verdict.pass) {
    const counted = after.verdict?.pass ? after.verdict.counts.passed : after.tests.size;
    return { ...none, passedBoth: Math.max(1, counted) };
  }
  if (before.verdict?.pass)
    return {
      ...none,
      regressions: [
        { test: command, how: 'gone', lines: [`no test passed after the fix: ${whyNot(after)}`] },
      ],
    };
  return { ...none, notRun: `no test ran and passed before or after the fix (after: ${whyNot(after)})` };
}

function whyNot(run: SuiteRun): string {
  return run.verdict && !run.verdict.pass ? run.verdict.why : 'counts unknown';
}

function lastLines(text: string): string[] {
  return text.trimEnd().split('\n').slice(-3);
}
