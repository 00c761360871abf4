// What the three read/search tools return inside their envelope: read_entity's entity and body,
// search_symbol's signature-only matches, search_code's summaries. The primitives build values of
// these types and the trust gate parses recorded results with the same schemas.
import { z } from 'zod';
import { entityKindSchema, entitySchema } from '../../runtime/ledger/code-entity.js';
import { envelopeOf } from './envelope.js';

const readEntityDataSchema = z.object({
  entity: entitySchema,
  /** The entity's source lines (decorators included), or null when `body` was false. */
  body: z.string().nullable(),
  /** Set when the selector is defined more than once: which definition this is. */
  note: z.string().optional(),
});
export type ReadEntityResult = z.output<typeof readEntityDataSchema>;
export const readEntityResultSchema = envelopeOf(readEntityDataSchema);

export const symbolMatchSchema = z.object({
  selector: z.string(),
  kind: entityKindSchema,
  signature: z.string(),
  path: z.string(),
  line: z.int(),
});
export type SymbolMatch = z.output<typeof symbolMatchSchema>;
const searchSymbolDataSchema = z.object({ matches: z.array(symbolMatchSchema) });
export const searchSymbolResultSchema = envelopeOf(searchSymbolDataSchema);

const codeResultSchema = z.object({
  selector: z.string(),
  signature: z.string(),
  doc: z.string().nullable(),
  score: z.number(),
});
export type CodeResult = z.output<typeof codeResultSchema>;
const searchCodeDataSchema = z.object({
  results: z.array(codeResultSchema),
  retrieval: z.enum(['lexical', 'embed']),
  /** Why the results are lexical when embeddings were asked for. */
  note: z.string().optional(),
});
export type SearchCodeResult = z.output<typeof searchCodeDataSchema>;
export const searchCodeResultSchema = envelopeOf(searchCodeDataSchema);
