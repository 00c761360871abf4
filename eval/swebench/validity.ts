// What makes an instance sound, from the per-test outcomes of its two runs. The public harness
// validates a set by grading the gold patch alone: every FAIL_TO_PASS and PASS_TO_PASS test passes
// with it. One check of how SWE-bench built its sets is added, because without it an instance
// measures nothing: every FAIL_TO_PASS test fails at base_commit with the test patch (an empty
// patch must not resolve it). A PASS_TO_PASS test that fails at base_commit but passes with the
// gold patch is the dataset's labelling (a test the test patch adds, listed as passing), not a
// fault of the environment: the instance stays gradeable, and the run says so in a note.
import type { SweInstance } from './instance-file.js';
import { failing, type TestStatus } from './test-grade.js';

/**
 * Which rule judged a kept validation: 2 leaves PASS_TO_PASS at base_commit to the gold run (1
 * required it to pass there too). A validation kept under another rule is made again.
 */
export const VALIDITY_RULE = 2;

export interface RunOutcomes {
  tests: Record<string, TestStatus>;
  timedOut: boolean;
}

type Tests = Pick<SweInstance, 'FAIL_TO_PASS' | 'PASS_TO_PASS'>;

/** The ids of `list`, as "a, b, c and 3 more". */
function named(ids: string[]): string {
  const shown = ids.slice(0, 3).join(', ');
  return ids.length > 3 ? `${shown} and ${ids.length - 3} more` : shown;
}

function withStatus(ids: string[], run: RunOutcomes): string {
  return named(ids.map((id) => `${id} (${run.tests[id]})`));
}

/** What makes the run at base_commit + test patch unusable, or null (then the gold run decides). */
export function baseProblem(instance: Tests, run: RunOutcomes): string | null {
  const passing = instance.FAIL_TO_PASS.filter((id) => run.tests[id] === 'passed');
  if (passing.length > 0)
    return `FAIL_TO_PASS ${named(passing)} already passes at base_commit with the test patch`;
  return run.timedOut ? 'the tests timed out at base_commit' : null;
}

/**
 * What is wrong with the gold patch + test patch, or null. PASS_TO_PASS tests that fail in both runs
 * are named first, as such: the gold patch did not break them, the environment (or the base) did,
 * and whatever else failed with them most likely failed for the same reason.
 */
export function goldProblem(instance: Tests, base: RunOutcomes, gold: RunOutcomes): string | null {
  const ids = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS];
  const failed = ids.filter((id) => failing(gold.tests[id]));
  const both = instance.PASS_TO_PASS.filter((id) => failing(gold.tests[id]) && failing(base.tests[id]));
  if (both.length > 0)
    return `PASS_TO_PASS ${withStatus(both, base)} does not pass at base_commit, nor with the gold patch`;
  if (failed.length > 0)
    return `with the gold patch, ${withStatus(failed, gold)} does not pass: the gold patch does not resolve it`;
  return gold.timedOut ? 'the tests timed out with the gold patch' : null;
}

/** The PASS_TO_PASS tests that failed at base_commit and passed with the gold patch, as a note. */
export function baseOnlyNote(instance: Tests, base: RunOutcomes, gold: RunOutcomes): string | null {
  const ids = instance.PASS_TO_PASS.filter((id) => failing(base.tests[id]) && !failing(gold.tests[id]));
  if (ids.length === 0) return null;
  return `PASS_TO_PASS ${withStatus(ids, base)} fails at base_commit and passes with the gold patch (graded as listed)`;
}
