// What a turn row's `action` holds, declared once: the model's proposal as parsed (proposal.ts), or,
// when the model call itself failed, the failure and its HTTP attempts; null for a no-op turn.
// select.ts writes it; `ledger show`, `replay` and the A/B facts read it back through these schemas.
import { z } from 'zod';
import type { Attempt } from '../../runtime/model/types.js';
import { proposalSchema } from '../proposal.js';

const failedModelCallSchema = z.object({
  error: z.string(),
  attempts: z.array(z.custom<Attempt>((value) => typeof value === 'object' && value !== null)),
});
export type FailedModelCall = z.output<typeof failedModelCallSchema>;

/** A failed call as the readers need it (its message), whatever its attempts hold. */
export const failedModelCallErrorSchema = failedModelCallSchema.pick({ error: true });

/** The tool a proposal named: all the A/B's decision count reads. */
export const proposedToolSchema = proposalSchema.pick({ tool: true });

export { proposalSchema };
