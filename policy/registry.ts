// The tool registry of docs/policy.md, "The tool registry": the six executable tools, each declared
// once with zod in its own module (primitives/tools/, listed in all-tools.ts), plus the two reserved
// non-tool names. Everything else is derived from those declarations: the spec's JSON view (`"int 1..100 (default 100)"`), the JSON Schema offered for
// native function calling, the validation rules and their "expected ..." phrases.
import { z } from 'zod';
import {
  isToolName,
  TOOL_NAMES,
  toolDefinition,
  type ToolCall,
  type ToolName,
} from '../primitives/tools/all-tools.js';
import type { ToolSpec } from '../runtime/model/types.js';

export { isToolName, TOOL_NAMES, type ToolCall, type ToolName };

/** What the registry declares of a tool: read from its module (primitives/tools/<name>.ts). */
interface ToolDeclaration {
  description: string;
  /** Strict: an arg not declared here is rejected (`unknown arg: <name>`), never ignored. */
  args: z.ZodObject;
  returns: string;
  keywords: readonly string[];
  category: string;
}

export function toolDeclaration(name: ToolName): ToolDeclaration {
  return toolDefinition(name);
}

// ---- the reserved non-tool names (section 3.3) -------------------------------------------------

/** Not tools: never retrieved, never validated, they end the loop segment. */
export const RESERVED_NAMES = ['ask_user', 'stop'] as const;
export type ReservedName = (typeof RESERVED_NAMES)[number];

export function isReservedName(name: string): name is ReservedName {
  return (RESERVED_NAMES as readonly string[]).includes(name);
}

/** The reserved names' one-line descriptions (section 5 item 2) and their argument (section 3.3). */
export const RESERVED = {
  ask_user: { description: 'ask the operator a question', arg: 'question' },
  stop: { description: 'halt with a reason', arg: 'reason' },
} as const satisfies Record<ReservedName, { description: string; arg: string }>;

// ---- derived views ----------------------------------------------------------------------------

/** One arg's JSON Schema, as zod derives it (input side: an arg with a default may be omitted). */
export interface ArgSchema {
  type?: string;
  items?: { type?: string };
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
}

export interface ArgInfo {
  name: string;
  required: boolean;
  schema: ArgSchema;
}

function deriveArgs(declaration: ToolDeclaration): ArgInfo[] {
  const schema = z.toJSONSchema(declaration.args, { io: 'input' }) as {
    properties: Record<string, ArgSchema>;
    required?: string[];
  };
  return Object.entries(schema.properties).map(([name, argSchema]) => ({
    name,
    required: (schema.required ?? []).includes(name),
    schema: argSchema,
  }));
}

const ARG_INFO = Object.fromEntries(
  TOOL_NAMES.map((name) => [name, deriveArgs(toolDeclaration(name))]),
) as Record<ToolName, ArgInfo[]>;

/** The declared args of a tool, in declaration order. */
export function toolArgs(name: ToolName): readonly ArgInfo[] {
  return ARG_INFO[name];
}

/** The spec's type word: `str`, `int`, `bool`, `list[str]`. */
export function typeWord(schema: ArgSchema): string {
  if (schema.type === 'string') return 'str';
  if (schema.type === 'integer') return 'int';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'array') return `list[${typeWord(schema.items ?? {})}]`;
  return schema.type ?? 'any';
}

/** The type with its caps as the spec's table writes it: `int 1..100`, `str ≤400`, `list[str]`. */
function cappedType(schema: ArgSchema): string {
  const word = typeWord(schema);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `${word} ${schema.minimum}..${schema.maximum}`;
  if (schema.maxLength !== undefined) return `${word} ≤${schema.maxLength}`;
  return word;
}

/** The spec's arg rendering: `"str (required)"`, `"bool (default false)"`, `"int 1..100 (default 100)"`. */
function renderArg(arg: ArgInfo): string {
  const qualifier = arg.required
    ? 'required'
    : arg.schema.default !== undefined
      ? `default ${JSON.stringify(arg.schema.default)}`
      : 'optional';
  return `${cappedType(arg.schema)} (${qualifier})`;
}

/** The spec's "exact tool-description schema" (section 4.1), JSON-serializable. */
export interface ToolDescription {
  name: ToolName;
  description: string;
  args: Record<string, string>;
  returns: string;
  keywords: string[];
  category: string;
}

export interface ReservedDescription {
  name: ReservedName;
  description: string;
  args: Record<string, string>;
}

export function describeTool(name: ToolName): ToolDescription {
  const declaration = toolDeclaration(name);
  return {
    name,
    description: declaration.description,
    args: Object.fromEntries(ARG_INFO[name].map((arg) => [arg.name, renderArg(arg)])),
    returns: declaration.returns,
    keywords: [...declaration.keywords],
    category: declaration.category,
  };
}

/** The question/reason is optional: the reserved names carry no preconditions (section 3.3). */
function describeReserved(name: ReservedName): ReservedDescription {
  return { name, description: RESERVED[name].description, args: { [RESERVED[name].arg]: 'str (optional)' } };
}

/** The whole registry as data: what `piper-agent tools --json` prints. */
export function registryView(): { tools: ToolDescription[]; reserved: ReservedDescription[] } {
  return { tools: TOOL_NAMES.map(describeTool), reserved: RESERVED_NAMES.map(describeReserved) };
}

/** One tool's JSON Schema for native function calling, derived from the zod declaration. */
export function toolJsonSchema(name: ToolName): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(toolDeclaration(name).args, { io: 'input' });
  return schema;
}

function reservedJsonSchema(name: ReservedName): Record<string, unknown> {
  return {
    type: 'object',
    properties: { [RESERVED[name].arg]: { type: 'string' } },
    additionalProperties: false,
  };
}

/** Native function-calling specs: the given tools, then `ask_user` and `stop` so the model can end a segment. */
export function nativeToolSpecs(names: readonly ToolName[]): ToolSpec[] {
  return [
    ...names.map((name) => ({
      name,
      description: toolDeclaration(name).description,
      parameters: toolJsonSchema(name),
    })),
    ...RESERVED_NAMES.map((name) => ({
      name,
      description: RESERVED[name].description,
      parameters: reservedJsonSchema(name),
    })),
  ];
}

/** One candidate line of the selection prompt (section 5 item 2): `name — description — args`. */
export function candidateLine(name: ToolName): string {
  const args = ARG_INFO[name].map((arg) => `${arg.name}: ${renderArg(arg)}`).join(', ');
  return `${name} — ${toolDeclaration(name).description} — ${args}`;
}

/** The two reserved lines, exactly as section 5 item 2 writes them. */
export function reservedLines(): string[] {
  return RESERVED_NAMES.map((name) => `${name} — ${RESERVED[name].description}`);
}
