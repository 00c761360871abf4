// The six executable tools, in registry order (retrieval breaks score ties by it). Every list of
// tools, every name type and every per-tool lookup (the registry, validation, the trust gate,
// retrieval, the runner) is derived from this one table, so adding a tool is its folder
// (primitives/tools/<name>/) and one line here. The table is keyed by each tool's own name, so no
// name is written twice.
import type { z } from 'zod';
import { editEntityTool } from './edit-entity/tool.js';
import { executeTool } from './execute/tool.js';
import { readEntityTool } from './read-entity/tool.js';
import { runTestTool } from './run-test/tool.js';
import { searchCodeTool } from './search-code/tool.js';
import { searchSymbolTool } from './search-symbol/tool.js';
import type { ExecutedCall, ToolDefinition } from './tool.js';
import type { ToolContext } from './tool-context.js';

const TOOLS = {
  [readEntityTool.name]: readEntityTool,
  [searchSymbolTool.name]: searchSymbolTool,
  [searchCodeTool.name]: searchCodeTool,
  [editEntityTool.name]: editEntityTool,
  [runTestTool.name]: runTestTool,
  [executeTool.name]: executeTool,
};

type Tools = typeof TOOLS;

/** The six executable tools' names. */
export type ToolName = keyof Tools;

/** The arguments of a tool after validation: defaults applied, optional args absent when not given. */
type ToolArgs<N extends ToolName> = z.output<Tools[N]['args']>;

/** What tool N returns. */
export type ToolResultOf<N extends ToolName> = z.output<Tools[N]['result']>;

/** A validated call of one tool (of any, by default); the union is discriminated by `tool`. */
export type ToolCall<N extends ToolName = ToolName> = { [K in N]: { tool: K; args: ToolArgs<K> } }[N];

/**
 * The same table typed per key, so that indexing it with a generic name keeps the link between the
 * name, its args and its result (a plain index would give the union of all six).
 */
type Definitions = { readonly [N in ToolName]: ToolDefinition<N, Tools[N]['args'], Tools[N]['result']> };
const DEFINITIONS: Definitions = TOOLS;

/** The result schemas typed per key the same way (zod's safeParse is typed by its schema's own type). */
const RESULTS: { readonly [N in ToolName]: { readonly result: z.ZodType<ToolResultOf<N>> } } = TOOLS;

/** The args schemas typed per key the same way. */
const ARGS: { readonly [N in ToolName]: { readonly args: z.ZodType<ToolArgs<N>> } } = TOOLS;

/** Every tool, in registry order. */
export const ALL_TOOLS: ReadonlyArray<Definitions[ToolName]> = Object.values(DEFINITIONS);

/** The six names, in registry order. */
export const TOOL_NAMES: readonly ToolName[] = ALL_TOOLS.map((tool) => tool.name);

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(DEFINITIONS, name);
}

export function toolDefinition<N extends ToolName>(name: N): Definitions[N] {
  return DEFINITIONS[name];
}

/** Runs a validated call with its own tool: the args keep their type from validation to the effect. */
export function runToolCall<N extends ToolName>(call: ToolCall<N>, ctx: ToolContext): Promise<ExecutedCall> {
  return DEFINITIONS[call.tool].run(ctx, call.args);
}

/** A call's args parsed against its tool's schema (defaults applied): the typed call, or zod's issues. */
export function parseToolCall<N extends ToolName>(
  tool: N,
  args: unknown,
): { ok: true; call: ToolCall<N> } | { ok: false; error: z.ZodError } {
  const parsed = ARGS[tool].args.safeParse(args);
  if (!parsed.success) return { ok: false, error: parsed.error };
  const call: ToolCall<N> = { tool, args: parsed.data };
  return { ok: true, call };
}

/** A recorded result parsed against its tool's schema: the typed result, or zod's issues. */
export function parseToolResult<N extends ToolName>(
  tool: N,
  value: unknown,
): z.ZodSafeParseResult<ToolResultOf<N>> {
  return RESULTS[tool].result.safeParse(value);
}

/** Whether a tool (by the name its ledger row has) runs in a sandbox container. */
export function isSandboxed(tool: string): boolean {
  return isToolName(tool) && DEFINITIONS[tool].sandboxed;
}

/** The argument a call is about (selector, query, target, code); '' for a name that is no tool. */
export function callSubject(tool: string, args: Record<string, unknown>): string {
  return isToolName(tool) ? DEFINITIONS[tool].subject(args) : '';
}

/** The observation kind of a call of this tool from this origin (a trigger's search_symbol is `symbol`). */
export function observationKind(tool: ToolName, origin: string): string {
  const definition: Definitions[ToolName] = DEFINITIONS[tool];
  return origin === 'trigger' && 'triggerKind' in definition && definition.triggerKind
    ? definition.triggerKind
    : definition.kind;
}
