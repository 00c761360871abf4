// The regression gate's rule, pure: a test that passed on the base snapshot and fails or errors on
// the final one is a regression; one that failed before and still fails is the project's, reported
// apart. Per test when the output names its tests (pytest's summary lines, runtime/test-output/);
// otherwise the command's own exit code is the one test there is.
import type { SummaryWord } from '../../runtime/test-output/pytest-summary.js';
import type { Regression } from './suite-report.js';

/** One run of the suite: its per-test words, exit code, and the first lines of each failure. */
export interface SuiteRun {
  tests: ReadonlyMap<string, SummaryWord>;
  exitCode: number;
  timedOut: boolean;
  failureLines: ReadonlyMap<string, string[]>;
  /** The end of the output: the failure's lines when no test is named. */
  tail: string;
}

export interface SuiteComparison {
  passedBoth: number;
  regressions: Regression[];
  failingBefore: string[];
}

const BROKEN: ReadonlySet<SummaryWord> = new Set(['FAILED', 'ERROR']);

export function compareRuns(command: string, before: SuiteRun, after: SuiteRun): SuiteComparison {
  if (before.tests.size === 0 || (after.tests.size === 0 && !after.timedOut && after.exitCode === 0))
    return wholeCommand(command, before, after);
  const regressions: Regression[] = [];
  const failingBefore: string[] = [];
  let passedBoth = 0;
  for (const [test, word] of before.tests) {
    const now = after.tests.get(test);
    if (word === 'PASSED') {
      if (now === 'PASSED') passedBoth += 1;
      else if (brokeAfter(now, after)) regressions.push({ test, lines: linesOf(test, now, after) });
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

/** No test named: the command is the one test, judged by its exit code. */
function wholeCommand(command: string, before: SuiteRun, after: SuiteRun): SuiteComparison {
  const passedBefore = before.exitCode === 0 && !before.timedOut;
  const passedAfter = after.exitCode === 0 && !after.timedOut;
  if (passedBefore && passedAfter)
    return { passedBoth: Math.max(1, after.tests.size), regressions: [], failingBefore: [] };
  if (passedBefore)
    return {
      passedBoth: 0,
      regressions: [{ test: command, lines: lastLines(after.tail) }],
      failingBefore: [],
    };
  return { passedBoth: 0, regressions: [], failingBefore: passedAfter ? [] : [command] };
}

function lastLines(text: string): string[] {
  return text.trimEnd().split('\n').slice(-3);
}
