// What the regression gate found, as the result, the `suite` event and the ledger carry it: the
// project's own test command, run on the run's base snapshot and on its final one, compared per
// test. Declared once in zod (the stream's schema is generated from it).
import { z } from 'zod';

/** The budget of each suite run when none is set: fits an ordinary project's suite. */
export const DEFAULT_SUITE_TIMEOUT_S = 600;

const SUITE_STATUSES = ['clean', 'regressed', 'partial', 'not_run'] as const;

const regressionSchema = z.object({
  test: z
    .string()
    .describe('the test id (a pytest node id; the command itself when the output names no test)'),
  how: z
    .enum(['failed', 'muted', 'gone'])
    .optional()
    .describe(
      'failed (absent: failed or errored), muted (skipped or marked xfail after the fix), gone (not run after the fix: deleted, renamed or deselected)',
    ),
  lines: z.array(z.string()).describe('the first lines of its failure after the fix'),
});
export type Regression = z.infer<typeof regressionSchema>;

export const suiteReportSchema = z.object({
  status: z
    .enum(SUITE_STATUSES)
    .describe(
      'clean: nothing that passed before fails, is muted or is gone after; regressed: some test did; partial: the suite was over its budget and only the test files importing the changed code ran; not_run: no comparison, nothing ran on either side among them (said in reason)',
    ),
  command: z.string().describe("the project's own test command (partial: the test files run)"),
  passed_both: z.number().int().min(0).describe('tests that passed before and after the fix'),
  regressions: z.array(regressionSchema).describe('passed before; failed, errored, muted or gone after'),
  failing_before: z
    .array(z.string())
    .describe("failed before and still fail: not the fix's doing, reported apart, never blocking"),
  files: z.array(z.string()).optional().describe('partial: the test files that ran'),
  base_cached: z.boolean().describe('the base run came from the ledger (same snapshot and environment)'),
  seconds: z.number().describe('seconds the gate added after the loop ended'),
  reason: z.string().optional().describe('not_run / partial: why'),
});
export type SuiteReport = z.infer<typeof suiteReportSchema>;

const SHOWN = 5;

/** One line for the text output and the TUI: what the suite said, never silent about what did not run. */
export function suiteLine(s: SuiteReport): string {
  const apart = s.failing_before.length
    ? ` · ${s.failing_before.length} failing before and after (not this fix's): ${shown(s.failing_before)}`
    : '';
  switch (s.status) {
    case 'clean':
      return `suite: ${s.passed_both} passed before and after${apart}`;
    case 'regressed':
      return `suite: ${s.regressions.length} regression(s): ${shown(s.regressions.map((r) => r.test))}${apart}`;
    case 'partial':
      return `suite: partial — ${s.reason ?? 'over its budget'}; ${s.passed_both} passed before and after in ${s.files?.length ?? 0} file(s)${apart}`;
    case 'not_run':
      return `suite: not run — ${s.reason ?? 'no comparison'}`;
  }
}

/** Each regression and the first lines of its failure, for the screens that list them. */
export function regressionLines(s: SuiteReport): string[] {
  return s.regressions.flatMap((r) => [`  ✗ ${r.test}`, ...r.lines.slice(0, 3).map((l) => `      ${l}`)]);
}

function shown(ids: string[]): string {
  return ids.length > SHOWN
    ? `${ids.slice(0, SHOWN).join(', ')}, … (${ids.length - SHOWN} more)`
    : ids.join(', ');
}
