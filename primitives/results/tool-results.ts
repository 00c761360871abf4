// Each tool's result schema, by tool name: the one declaration a primitive's return type, the
// trust gate's schema check and every reader of a recorded result derive from. A primitive's real
// output always satisfies its own schema; a result that does not is a drift the gate reports.
import type { z } from 'zod';
import { editResultSchema } from './edit-result.js';
import { readEntityResultSchema, searchCodeResultSchema, searchSymbolResultSchema } from './read-results.js';
import { executeResultSchema, runTestResultSchema } from './sandbox-results.js';

const SCHEMAS = {
  read_entity: readEntityResultSchema,
  search_symbol: searchSymbolResultSchema,
  search_code: searchCodeResultSchema,
  edit_entity: editResultSchema,
  run_test: runTestResultSchema,
  execute: executeResultSchema,
};

/** The six executable tools, named as the registry names them. */
export type ToolCallName = keyof typeof SCHEMAS;

/** What tool N returns. */
export type ToolResultOf<N extends ToolCallName> = z.output<(typeof SCHEMAS)[N]>;

/**
 * The same table, typed per key so that indexing it with a generic tool name keeps the link
 * between the name and its result type (a plain index would give the union of all six).
 */
export const RESULT_SCHEMAS: { readonly [N in ToolCallName]: z.ZodType<ToolResultOf<N>> } = SCHEMAS;

/** A recorded result parsed against its tool's schema: the typed result, or zod's issues. */
export function parseToolResult<N extends ToolCallName>(
  tool: N,
  value: unknown,
): z.ZodSafeParseResult<ToolResultOf<N>> {
  return RESULT_SCHEMAS[tool].safeParse(value);
}
