// The envelope every read/search/edit tool returns, as a schema over the tool's own data: ok, an
// error (null when ok) and the data (null when the call failed; a refused edit keeps its data).
// `ok ⇒ data present, failed ⇒ error present` is the trust gate's check, beside the schema, because
// a refinement here would lose zod's inferred type.
import { z } from 'zod';
import type { Envelope } from '../types.js';

export const envelopeOf = <T extends z.ZodType>(data: T) =>
  z.object({ ok: z.boolean(), error: z.string().nullable(), data: data.nullable() });

/** Compile-time proof that the schema's output is the Envelope every primitive is typed with. */
type EnvelopeOutput<T extends z.ZodType> = z.output<ReturnType<typeof envelopeOf<T>>>;
export type EnvelopeConforms<T extends z.ZodType> =
  EnvelopeOutput<T> extends Envelope<z.output<T>> ? true : never;
const conforms: EnvelopeConforms<z.ZodString> = true;
void conforms;
