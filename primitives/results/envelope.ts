// The envelope every read/search/edit tool returns, as a schema over the tool's own data: ok, an
// error (null when ok) and the data (null when the call failed; a refused edit keeps its data).
// `ok ⇒ data present, failed ⇒ error present` is the trust gate's check, beside the schema, because
// a refinement here would lose zod's inferred type.
// The primitives are typed with Envelope<T> (../types.ts); Workspace.read and Workspace.edit return
// them as these schemas' outputs, so the compiler holds each primitive to its tool's schema.
import { z } from 'zod';

export const envelopeOf = <T extends z.ZodType>(data: T) =>
  z.object({ ok: z.boolean(), error: z.string().nullable(), data: data.nullable() });
