// What the two sandbox tools return: run_test's verdict (passed is exit_code == 0, never read from
// the output) and execute's captured streams. Neither is an envelope: a sandbox run always has an
// exit code. The exit code and timeout also sit on the sandbox receipt the ledger keeps, which the
// trust gate compares them with.
import { z } from 'zod';
import type { Receipt } from '../../runtime/sandbox/spec.js';

/** A suite's counts, from pytest's or unittest's summary; `skipped` is 0 in results recorded before it was kept. */
export const pytestCountsSchema = z.object({
  passed: z.int(),
  failed: z.int(),
  errors: z.int(),
  skipped: z.int().default(0),
});

export const runTestResultSchema = z.object({
  passed: z.boolean(),
  exit_code: z.int(),
  /** The end of stdout+stderr (where a traceback ends); the full streams stay in the ledger. */
  output: z.string(),
  timed_out: z.boolean(),
  /** The suite's counts, when the output has pytest's or unittest's summary (runtime/test-output/counts.ts). */
  counts: pytestCountsSchema.optional(),
  /**
   * Exit code 0 that is not a pass by the counts: why (no test ran, all skipped, a failure named,
   * counts unknown). The trust gate marks such a result unverified; absent on a real pass or a failure.
   */
  unverified_pass: z.string().optional(),
});
export type RunTestResult = z.output<typeof runTestResultSchema>;

export const executeResultSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.int(),
  timed_out: z.boolean(),
});
export type ExecuteResult = z.output<typeof executeResultSchema>;

/** The receipt's own verdict on a sandbox run, as the ledger's executions row holds it. */
export type SandboxVerdict = Pick<Receipt, 'exit_code' | 'timed_out'>;
