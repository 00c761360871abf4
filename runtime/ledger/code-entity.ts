// One entity of the code index, declared once: the shape the ledger's code_nodes rows store, the
// shape every read/search primitive returns, and what the trust gate checks those results against.
// It lives here, in the lowest layer that holds it, so the index (primitives/index) and the tools
// above it derive their types from this schema instead of repeating the fields.
import { z } from 'zod';

export const entityKindSchema = z.enum(['module', 'class', 'function', 'method']);
export type EntityKind = z.output<typeof entityKindSchema>;

/** Lines are 1-based and inclusive. Key order is the order a result shows them in. */
export const entitySchema = z.object({
  /** e.g. `src.calc.ops.Calc.add`; a module's selector is its dotted path (`pkg` for pkg/__init__.py). */
  selector: z.string(),
  kind: entityKindSchema,
  /** The entity's own name (`add`); for a module, the last path component. */
  name: z.string(),
  /** Path relative to the repo root, with `/` separators. */
  path: z.string(),
  startLine: z.int(),
  endLine: z.int(),
  /** Byte offsets of the entity's span (decorators included) in the file's UTF-8 bytes. */
  startByte: z.int(),
  endByte: z.int(),
  /** Decorators + the header up to its colon, e.g. `@cache\ndef add(self, a, b) -> int:`. */
  signature: z.string(),
  /** First line of the docstring, or null. */
  doc: z.string().nullable(),
  async: z.boolean(),
});
export type Entity = z.output<typeof entitySchema>;

/**
 * A stored node: the entity and what only the index reads.
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const codeNodeRowSchema = entitySchema.extend({
  /** Definition order in the file; 0 is the module. */
  seq: z.int(),
  /** Full docstring + names used in the body: what lexical search reads besides the signature. */
  terms: z.string(),
});
export type CodeNodeRow = z.output<typeof codeNodeRowSchema>;
