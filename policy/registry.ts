// The tool registry of docs/policy.md, "The tool registry": the six executable tools, declared
// once here with zod, plus the two reserved non-tool names. Everything else is derived from these
// declarations: the spec's JSON view (`"int 1..100 (default 100)"`), the JSON Schema offered for
// native function calling, the validation rules and their "expected ..." phrases.
import { z } from 'zod';
import type { ToolCallName } from '../primitives/results/tool-results.js';
import type { ToolSpec } from '../runtime/model/types.js';

export type ToolCategory = 'read' | 'search' | 'edit' | 'execute';

interface ToolDeclaration {
  description: string;
  /** Strict: an arg not declared here is rejected (`unknown arg: <name>`), never ignored. */
  args: z.ZodObject;
  returns: string;
  keywords: readonly string[];
  category: ToolCategory;
}

// Registry order matters: retrieval breaks score ties by it (section 4.2).
const DECLARATIONS = {
  read_entity: {
    description: "read a code entity's signature and optional windowed body",
    args: z.strictObject({
      selector: z.string(),
      body: z.boolean().default(false),
      window: z.int().min(1).max(100).default(100),
    }),
    returns: 'envelope {ok, error, data:{entity, body}}',
    keywords: ['read', 'view', 'inspect', 'signature', 'body', 'entity', 'function', 'class', 'method'],
    category: 'read',
  },
  search_symbol: {
    description: 'signature-only AST symbol search',
    args: z.strictObject({
      query: z.string(),
      keywords: z.array(z.string()).optional(),
      k: z.int().min(1).max(10).default(10),
    }),
    returns: 'envelope {ok, error, data:{matches:[{selector, kind, signature, path, line}]}}',
    keywords: ['search', 'symbol', 'find', 'lookup', 'name', 'signature', 'grep', 'function'],
    category: 'search',
  },
  search_code: {
    description: 'summarized + capped embedding retrieval over entities',
    args: z.strictObject({
      query: z.string(),
      cap: z.int().min(1).max(8).default(8),
    }),
    returns: 'envelope {ok, error, data:{results:[{selector, signature, doc, score}], retrieval, note?}}',
    keywords: ['search', 'code', 'retrieve', 'similar', 'related', 'embedding', 'semantic'],
    category: 'search',
  },
  edit_entity: {
    description: 'exact-string replace scoped to an entity, linter-gated',
    args: z.strictObject({
      selector: z.string(),
      search: z.string().max(400),
      replace: z.string().max(2000),
    }),
    returns: 'envelope {ok, error, data:{committed, lint_clean, diff}}',
    keywords: ['edit', 'change', 'fix', 'patch', 'replace', 'modify', 'update', 'write', 'correct'],
    category: 'edit',
  },
  run_test: {
    description: 'execute a test; pass/fail + truncated traceback',
    args: z.strictObject({
      target: z.string(),
      timeout: z.int().min(1).max(300).default(120),
    }),
    returns: '{passed, exit_code, output, timed_out, counts?}',
    keywords: ['test', 'run', 'verify', 'pytest', 'fail', 'pass', 'assert', 'regression'],
    category: 'execute',
  },
  execute: {
    description: 'sandboxed compute (no net / no host fs / bounded time)',
    args: z.strictObject({
      code: z.string(),
      timeout: z.int().min(1).max(30).default(10),
    }),
    returns: '{stdout, stderr, exit_code, timed_out}',
    keywords: ['execute', 'compute', 'run', 'calculate', 'eval', 'script', 'code', 'sandbox'],
    category: 'execute',
  },
} as const satisfies Record<ToolCallName, ToolDeclaration>;

// The same names as the tools' result schemas (primitives/results): a tool declared here has a
// declared result, and `satisfies` above refuses one that does not.
export type ToolName = keyof typeof DECLARATIONS;

/** The six executable tools, in registry order. */
export const TOOL_NAMES = Object.keys(DECLARATIONS) as ToolName[];

/** The arguments of a tool after validation: defaults applied, optional args absent when not given. */
export type ToolArgs<N extends ToolName> = z.output<(typeof DECLARATIONS)[N]['args']>;

/** A validated call of one tool; the union is discriminated by `tool`. */
export type ToolCall = { [N in ToolName]: { tool: N; args: ToolArgs<N> } }[ToolName];

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(DECLARATIONS, name);
}

export function toolDeclaration<N extends ToolName>(name: N): (typeof DECLARATIONS)[N] {
  return DECLARATIONS[name];
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
  TOOL_NAMES.map((name) => [name, deriveArgs(DECLARATIONS[name])]),
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
export function cappedType(schema: ArgSchema): string {
  const word = typeWord(schema);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `${word} ${schema.minimum}..${schema.maximum}`;
  if (schema.maxLength !== undefined) return `${word} ≤${schema.maxLength}`;
  return word;
}

/** The spec's arg rendering: `"str (required)"`, `"bool (default false)"`, `"int 1..100 (default 100)"`. */
export function renderArg(arg: ArgInfo): string {
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
  category: ToolCategory;
}

export interface ReservedDescription {
  name: ReservedName;
  description: string;
  args: Record<string, string>;
}

export function describeTool(name: ToolName): ToolDescription {
  const declaration: ToolDeclaration = DECLARATIONS[name];
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
export function describeReserved(name: ReservedName): ReservedDescription {
  return { name, description: RESERVED[name].description, args: { [RESERVED[name].arg]: 'str (optional)' } };
}

/** The whole registry as data: what `piper-agent tools --json` prints. */
export function registryView(): { tools: ToolDescription[]; reserved: ReservedDescription[] } {
  return { tools: TOOL_NAMES.map(describeTool), reserved: RESERVED_NAMES.map(describeReserved) };
}

/** One tool's JSON Schema for native function calling, derived from the zod declaration. */
export function toolJsonSchema(name: ToolName): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(DECLARATIONS[name].args, { io: 'input' });
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
      description: DECLARATIONS[name].description,
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
  return `${name} — ${DECLARATIONS[name].description} — ${args}`;
}

/** The two reserved lines, exactly as section 5 item 2 writes them. */
export function reservedLines(): string[] {
  return RESERVED_NAMES.map((name) => `${name} — ${RESERVED[name].description}`);
}
