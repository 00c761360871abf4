// A turns row, declared once: one model call of a run — the tools it was offered, the prompt's
// digest (the prompt itself is kept content-addressed, prompts.ts), the raw reply and the parsed
// action — written before the call and completed after it (turns.ts).
import { z } from 'zod';

/**
 * The turns table's columns, in its order (attempts and prompt were added by later migrations).
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const turnRowSchema = z.object({
  id: z.int(),
  run_id: z.string(),
  idx: z.int(),
  /** JSON: the retrieved tool names. */
  toolset: z.string().nullable(),
  prompt_digest: z.string().nullable(),
  prompt_tokens: z.int().nullable(),
  completion_tokens: z.int().nullable(),
  raw_output: z.string().nullable(),
  /** JSON: the parsed action (policy/turn/select.ts); null for a no-op turn. */
  action: z.string().nullable(),
  created_at: z.string(),
  /** JSON: the model call's HTTP attempts. */
  attempts: z.string().nullable(),
  /** JSON: the prompt's parts by sha256 (prompts.ts). */
  prompt: z.string().nullable(),
});
export type TurnRow = z.output<typeof turnRowSchema>;
