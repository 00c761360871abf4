// A calls row, declared once: every proposal the loop accepted or rejected, and every trigger's or
// operator's call, with its verdict and its terminal status.
import { z } from 'zod';

const callOriginSchema = z.enum(['model', 'trigger', 'user']);
export type CallOrigin = z.output<typeof callOriginSchema>;

const callStatusSchema = z.enum(['validated', 'dispatched', 'completed', 'failed', 'not_executed', 'denied']);
export type CallStatus = z.output<typeof callStatusSchema>;

/**
 * The calls table's columns, in its order.
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const callRowSchema = z.object({
  id: z.string(),
  run_id: z.string(),
  turn_id: z.int().nullable(),
  origin: callOriginSchema,
  tool: z.string(),
  /** JSON of the args as proposed (rejected) or validated (valid). */
  args: z.string(),
  verdict: z.enum(['valid', 'rejected']),
  /** The rejection reason. */
  reason: z.string().nullable(),
  status: callStatusSchema,
  status_reason: z.string().nullable(),
  owner: z.string(),
  container_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CallRow = z.output<typeof callRowSchema>;
