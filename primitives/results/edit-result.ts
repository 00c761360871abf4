// What edit_entity returns inside its envelope. A refused edit (lint gate, authorization) is a
// failed envelope that still carries this data, so the model sees why and what would have changed.
import { z } from 'zod';
import { diagnosticSchema } from '../lint/diagnostic.js';
import { envelopeOf } from './envelope.js';

/** Who refused an edit at the authorization stage, and why. */
export const editDenialSchema = z.object({ by: z.enum(['user', 'policy']), reason: z.string() });

const editDataSchema = z.object({
  committed: z.boolean(),
  /** The harness's verdict: the file as it now stands has no finding at all. */
  lint_clean: z.boolean(),
  diff: z.string(),
  /** On a refusal by the gate: the findings the edit would have added. */
  new_diagnostics: z.array(diagnosticSchema).optional(),
  /** Set when python3's compile() could not run, so the verdict is ruff's alone. */
  lint_note: z.string().optional(),
  /** Set when the edit is committed but the code index could not re-read the file. */
  index_note: z.string().optional(),
  /** Set when the authorization stage refused the edit: nothing was written. */
  denied: editDenialSchema.optional(),
});
export type EditResult = z.output<typeof editDataSchema>;
export const editResultSchema = envelopeOf(editDataSchema);
export type EditEnvelope = z.output<typeof editResultSchema>;
