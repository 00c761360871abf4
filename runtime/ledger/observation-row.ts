// An observation row, declared once: what a run observed (a tool's result, a trigger's, a rejection,
// the operator's answer) with the trust gate's mark. The loop writes it through RunRecord (or the
// in-memory record), the prompt's history and `ledger show` read it back; all of them take their
// types from here.
import { z } from 'zod';

/** The trust gate's mark as the ledger stores it (the prompt shows `trusted` as `verified`). */
export const trustSchema = z.enum(['trusted', 'unverified']);
export type Trust = z.output<typeof trustSchema>;

/**
 * The observations table's columns, in its order.
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const observationRowSchema = z.object({
  id: z.int(),
  run_id: z.string(),
  turn_id: z.int().nullable(),
  call_id: z.string().nullable(),
  /** read, search, symbol, edit, lint, test, execute, denied, rejected, noop, stop, ask_user, user. */
  kind: z.string(),
  target: z.string().nullable(),
  /** JSON of what was observed. */
  result: z.string(),
  trust: trustSchema,
  caveat: z.string().nullable(),
  created_at: z.string(),
});
export type ObservationRow = z.output<typeof observationRowSchema>;

/** What the loop hands the record to write one observation (the record adds the run and the time). */
export interface NewObservation {
  turnId?: number;
  callId?: string;
  kind: ObservationRow['kind'];
  target?: string;
  /** Stored as JSON. */
  result: unknown;
  trust: Trust;
  caveat?: string;
}
