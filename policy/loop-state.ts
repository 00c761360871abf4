// The loop state a run saves for `resume` (turns used, the triggers' memory), declared once as a
// schema: what the loop writes is read back only through this, so a saved state that does not
// match is refused (and rebuilt from the ledger's rows by the caller) instead of half-read.
import { z } from 'zod';

/** The trigger gate's memory across a resume: which keys fired, which edits were committed and tested. */
const triggerSnapshotSchema = z.object({
  fired: z.array(z.string()),
  committedEdits: z.array(z.string()),
  untestedEdits: z.number(),
});
export type TriggerSnapshot = z.output<typeof triggerSnapshotSchema>;

/** What a later `resume` needs: turns used and the triggers' memory (runs.config.loop_state). */
const loopStateSchema = z.object({ turnsUsed: z.number(), triggers: triggerSnapshotSchema });
export type LoopState = z.output<typeof loopStateSchema>;

/** The saved state, or null when there is none or it is not one. */
export function parseLoopState(raw: unknown): LoopState | null {
  const parsed = loopStateSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { turnsUsed, triggers } = parsed.data;
  return { turnsUsed, triggers };
}

const turnsUsedSchema = loopStateSchema.pick({ turnsUsed: true });

/** The loop's own turn count from a saved state, when it has one (the ledger views, the A/B facts). */
export function savedTurnsUsed(raw: unknown): number | undefined {
  const parsed = turnsUsedSchema.safeParse(raw);
  return parsed.success ? parsed.data.turnsUsed : undefined;
}
