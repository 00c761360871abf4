// The loop state a run saves for `resume` (turns used, the triggers' memory), as a schema: what the
// loop writes is read back only through this, so a saved state that does not match is refused
// (and rebuilt from the ledger's rows by the caller) instead of half-read.
import { z } from 'zod';
import type { LoopState } from '../loop-types.js';

const LOOP_STATE = z.object({
  turnsUsed: z.number(),
  triggers: z.object({
    fired: z.array(z.string()),
    committedEdits: z.array(z.string()),
    untestedEdits: z.number(),
  }),
}) satisfies z.ZodType<LoopState>;

/** The saved state, or null when there is none or it is not one. */
export function parseLoopState(raw: unknown): LoopState | null {
  const parsed = LOOP_STATE.safeParse(raw);
  if (!parsed.success) return null;
  const { turnsUsed, triggers } = parsed.data;
  return { turnsUsed, triggers };
}
