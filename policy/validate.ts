// Validation of a model-requested call (docs/policy.md, "Validation and the rejection strings"):
// the rules in order with their exact reason strings:
//   1. registry      `unknown tool: <name>`
//   2. args          `unknown arg: <name>` (every arg the proposal names that the tool does not declare,
//                    in the proposal's order), then `missing required arg: <name>` (declaration order),
//                    then `invalid arg: <name> (<why>)` (declaration order): a wrong type, a number out
//                    of its cap range (rejected, never clamped), a string over its cap
//   3. precondition  per tool, with the selector/evidence lookups injected
// The first failure is the reason. A rejection is a value, never an exception; the caller records it
// as the observation `{"ok": false, "rejected": true, "tool": ..., "reason": ...}` and never runs it.
//
// ask_user and stop never reach validation: `classifyProposal` recognises them first, by exact name
// (case-sensitive, like tool names), whatever their args; they carry no preconditions (section 3.3).
import type { Proposal } from './proposal.js';
import { jsonType } from './proposal.js';
import {
  isReservedName,
  isToolName,
  RESERVED,
  toolArgs,
  toolDeclaration,
  typeWord,
  type ArgInfo,
  type ArgSchema,
  type ToolCall,
} from './registry.js';
import { parseToolCall, toolDefinition, type ToolName } from '../primitives/tools/all-tools.js';
import type { PreconditionChecks } from '../primitives/tools/tool-checks.js';

export type { PreconditionChecks };

/** The rejection observation, exactly the spec's shape (keys in the spec's order). */
export interface Rejection {
  ok: false;
  rejected: true;
  tool: string;
  reason: string;
}

export type Validation<N extends ToolName = ToolName> =
  { ok: true; call: ToolCall<N> } | { ok: false; rejection: Rejection };

export type ClassifiedProposal =
  | { kind: 'ask_user'; question: string }
  | { kind: 'stop'; reason: string }
  | { kind: 'call'; proposal: Proposal };

/**
 * Reserved name or tool call. The question/reason is taken from `args.question` / `args.reason`: a
 * string as given, any other value as its JSON text, absent as ''. Everything else goes on to
 * `validateCall` (an unknown name is rule 1's business, not this function's).
 */
export function classifyProposal(proposal: Proposal): ClassifiedProposal {
  if (!isReservedName(proposal.tool)) return { kind: 'call', proposal };
  const text = reservedText(proposal.args[RESERVED[proposal.tool].arg]);
  return proposal.tool === 'ask_user' ? { kind: 'ask_user', question: text } : { kind: 'stop', reason: text };
}

export function validateCall(
  proposal: Proposal,
  checks: PreconditionChecks,
  options: {
    /** The evidence gate on edit_entity (LoopSettings.evidenceGate; default on). */
    evidenceGate?: boolean;
  } = {},
): Validation {
  const reject = (reason: string): { ok: false; rejection: Rejection } => ({
    ok: false,
    rejection: { ok: false, rejected: true, tool: proposal.tool, reason },
  });
  const { tool, args } = proposal;
  if (!isToolName(tool)) return reject(`unknown tool: ${tool}`);

  const declared = toolArgs(tool);
  const declaredNames = new Set(declared.map((arg) => arg.name));
  const unknown = Object.keys(args).find((name) => !declaredNames.has(name));
  if (unknown !== undefined) return reject(`unknown arg: ${unknown}`);
  const missing = declared.find((arg) => arg.required && !Object.hasOwn(args, arg.name));
  if (missing) return reject(`missing required arg: ${missing.name}`);
  const shape = toolDeclaration(tool).args.shape as Record<
    string,
    { safeParse(v: unknown): { success: boolean } }
  >;
  for (const arg of declared) {
    if (!Object.hasOwn(args, arg.name)) continue;
    const value = args[arg.name];
    if (!shape[arg.name]!.safeParse(value).success)
      return reject(`invalid arg: ${arg.name} (${why(arg, value)})`);
  }
  return bindCall(tool, args, checks, options.evidenceGate !== false, reject);
}

/** The call with its tool's types, then rule 3: its tool's precondition (primitives/tools/<name>/tool.ts). */
function bindCall<N extends ToolName>(
  tool: N,
  args: Record<string, unknown>,
  checks: PreconditionChecks,
  evidenceGate: boolean,
  reject: (reason: string) => { ok: false; rejection: Rejection },
): Validation<N> {
  const parsed = parseToolCall(tool, args);
  // Unreachable after the per-arg checks above; kept so a future cross-field rule cannot throw.
  if (!parsed.ok) return reject(`invalid arg: args (${parsed.error.issues[0]?.message ?? 'does not match'})`);
  const { call } = parsed;
  const failed = toolDefinition(tool).precondition(call.args, checks, { evidenceGate });
  return failed === null ? { ok: true, call } : reject(`precondition failed: ${failed}`);
}

/** The `<why>` of `invalid arg: <name> (<why>)`: what was expected, and what came. */
function why(arg: ArgInfo, value: unknown): string {
  return `expected ${expected(arg.schema)}, got ${got(arg.schema, value)}`;
}

/** `int 1..100`, `bool`, `str`, `str of at most 400 chars`, `list[str]`. */
function expected(schema: ArgSchema): string {
  const word = typeWord(schema);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `${word} ${schema.minimum}..${schema.maximum}`;
  if (schema.maxLength !== undefined) return `${word} of at most ${schema.maxLength} chars`;
  return word;
}

/** A wrong type names the JSON type that came; a wrong value of the right type names the value (or length). */
function got(schema: ArgSchema, value: unknown): string {
  const type = jsonType(value);
  switch (schema.type) {
    case 'integer':
      return type === 'number' ? String(value) : type;
    case 'string':
      return type === 'string' ? String((value as string).length) : type;
    case 'array': {
      if (type !== 'array') return type;
      const items = value as unknown[];
      const bad = items.findIndex((item) => jsonType(item) !== schema.items?.type);
      return bad >= 0 ? `array with ${jsonType(items[bad])} at index ${bad}` : type;
    }
    default:
      return type;
  }
}

function reservedText(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
