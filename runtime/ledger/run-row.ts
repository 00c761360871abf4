// A runs row, declared once: one fix, execute, run_test or tool run, its usage and how it ended.
// The readers that need less (the `ledger runs` list, the A/B facts) pick their columns from it.
import { z } from 'zod';

/**
 * The runs table's columns, in its order (prompt_boundary was added by a later migration).
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const runRowSchema = z.object({
  id: z.string(),
  /** `fix`, `execute`, `run_test` or `tool`. */
  kind: z.string(),
  issue: z.string().nullable(),
  repo: z.string().nullable(),
  head: z.string().nullable(),
  model: z.string().nullable(),
  /** The arm (`policy` or `current`). */
  policy: z.string().nullable(),
  /** JSON: caps, test target, image, environment key, the loop's saved state. */
  config: z.string().nullable(),
  /** `host:pid:start` of the process that ran it. */
  owner: z.string(),
  /** null while running. */
  outcome: z.string().nullable(),
  outcome_reason: z.string().nullable(),
  tokens_in: z.int(),
  tokens_out: z.int(),
  cost_usd: z.number().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  /** The fence boundary of the run's prompts; null for a run recorded before them. */
  prompt_boundary: z.string().nullable(),
});
export type RunRow = z.output<typeof runRowSchema>;
