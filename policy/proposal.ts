// Turning a model reply into at most one proposal (docs/policy.md, "The selection step"): exactly one
// JSON object `{ "tool": ..., "args": {...} }`, or, on the native function-calling protocol, exactly
// one tool call. Anything else is a no-op turn with a precise reason: recorded, never re-prompted,
// never run. Nothing here throws.
//
// Hostile replies are no-op turns too, never exceptions and never a guess: a reply
// over MAX_REPLY_BYTES, JSON nested deeper than MAX_JSON_DEPTH, and a duplicate key at any level
// (`{"tool":"stop","tool":"execute"}` is malformed, not "the last key wins"). Both protocols read
// their JSON through the strict reader of strict-json.ts.
import { z } from 'zod';
import { parseStrictJson, scanJson, type JsonScan } from './strict-json.js';

/** A reply (text, or the text of one call's arguments) over this many UTF-8 bytes is a no-op. */
export const MAX_REPLY_BYTES = 1024 * 1024;

/** What the model asked for, before classification (reserved name or tool) and validation. */
export const proposalSchema = z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()) });
export type Proposal = z.output<typeof proposalSchema>;

export type ParsedReply =
  | { ok: true; proposal: Proposal; via: 'json' | 'native' }
  /** A no-op turn. `protocolViolation`: the reply held more than one native call (none was run). */
  | { ok: false; reason: string; protocolViolation: boolean };

/** A native function call as the model client reports it (`arguments`: raw JSON text, or parsed). */
export interface NativeCall {
  name: string;
  arguments: string | Record<string, unknown>;
}

const noOp = (reason: string, protocolViolation = false): ParsedReply => ({
  ok: false,
  reason,
  protocolViolation,
});

/**
 * The JSON protocol. Accepted: one JSON object, with surrounding whitespace, optionally inside a
 * single ```json (or bare ```) fence. The object must have a string `tool`, an object `args` (absent
 * `args` reads as `{}`, the shape of an argument-less call), and no other keys.
 */
export function parseProposal(text: string): ParsedReply {
  const tooLarge = sizeNoOp(text);
  if (tooLarge) return tooLarge;
  const trimmed = text.trim();
  if (trimmed === '') return noOp('empty reply: expected one JSON object');
  const unfenced = unfence(trimmed);
  if (!unfenced.ok) return noOp(unfenced.reason);
  const body = unfenced.body;
  if (body === '') return noOp('empty ```json fence: expected one JSON object');
  if (body.startsWith('[')) {
    const list = tryParseStrict(body);
    return noOp(
      Array.isArray(list)
        ? `expected one JSON object, got a list of ${list.length}`
        : 'expected one JSON object, got a list',
    );
  }
  if (!body.startsWith('{')) {
    if (body.includes('{')) return noOp('expected one JSON object, found text before it');
    const scalar = tryParse(body);
    return noOp(
      scalar === undefined
        ? 'expected one JSON object, got prose'
        : `expected one JSON object, got ${jsonType(scalar)}`,
    );
  }
  const first = scanJson(body);
  if (!first.ok) return noOp(scanReason(first));
  const rest = body.slice(first.end).trim();
  if (rest !== '') {
    return noOp(
      rest.startsWith('{')
        ? 'expected exactly one JSON object, got more than one'
        : 'expected one JSON object, found text after it',
    );
  }
  return shapeProposal(first.value as Record<string, unknown>, 'json');
}

/**
 * The native function-calling protocol: exactly one call is accepted. More than one is a protocol
 * violation: a no-op, and none of the calls is run (a dependent call must wait for an observation).
 */
export function parseNativeCalls(calls: readonly NativeCall[]): ParsedReply {
  if (calls.length === 0) return noOp('no tool call in the reply');
  if (calls.length > 1) {
    const names = calls.map((call) => call.name).join(', ');
    return noOp(
      `protocol violation: ${calls.length} tool calls in one reply (${names}); exactly one is allowed, none was run`,
      true,
    );
  }
  const call = calls[0]!;
  let args: unknown = call.arguments;
  if (typeof args === 'string') {
    const tooLarge = sizeNoOp(args, ` in the arguments of ${call.name}`);
    if (tooLarge) return tooLarge;
    if (args.trim() === '') args = {};
    else {
      const scan = parseStrictJson(args);
      if (!scan.ok) return noOp(scanReason(scan, ` in the arguments of ${call.name}`));
      args = scan.value;
    }
  }
  if (!isPlainObject(args))
    return noOp(`the arguments of ${call.name} must be a JSON object, got ${jsonType(args)}`);
  return { ok: true, proposal: { tool: call.name, args }, via: 'native' };
}

/**
 * A whole reply. Protocol 'json' reads the text only. Protocol 'tools' takes the native calls; a
 * reply without any call falls back to the text, since models offered functions sometimes answer
 * with the spec's JSON object as content instead. A reply the server cut at the completion-token
 * limit (`maxTokens`, the limit in force) is a no-op that names the limit and the key that raises
 * it: what was cut may have gone on, so even a well-formed prefix is not the model's whole answer.
 */
export function parseReply(
  reply: { text: string | null; toolCalls: readonly NativeCall[]; finishReason?: string },
  protocol: 'json' | 'tools',
  maxTokens?: number,
): ParsedReply {
  if (reply.finishReason === 'length') return noOp(cutReason(maxTokens));
  if (protocol === 'json') return parseProposal(reply.text ?? '');
  if (reply.toolCalls.length > 0) return parseNativeCalls(reply.toolCalls);
  if ((reply.text ?? '').trim() === '') return noOp('no tool call in the reply, and no text');
  const fromText = parseProposal(reply.text ?? '');
  return fromText.ok
    ? fromText
    : noOp(`no tool call in the reply, and the text is not a proposal: ${fromText.reason}`);
}

/** The no-op reason of a reply cut at the completion-token limit. */
export function cutReason(maxTokens: number | undefined): string {
  const limit = maxTokens === undefined ? 'the completion-token limit' : `${maxTokens} completion tokens`;
  return `reply cut at ${limit}; raise sampling.maxCompletionTokens`;
}

function shapeProposal(value: Record<string, unknown>, via: 'json' | 'native'): ParsedReply {
  if (!isPlainObject(value)) return noOp(`expected one JSON object, got ${jsonType(value)}`);
  const extra = Object.keys(value).filter((key) => key !== 'tool' && key !== 'args');
  if (extra.length > 0)
    return noOp(`unexpected key "${extra[0]}" in the proposal (only "tool" and "args" are allowed)`);
  if (!('tool' in value)) return noOp('missing "tool" in the proposal');
  if (typeof value.tool !== 'string') return noOp(`"tool" must be a string, got ${jsonType(value.tool)}`);
  const args = 'args' in value ? value.args : {};
  if (!isPlainObject(args)) return noOp(`"args" must be a JSON object, got ${jsonType(args)}`);
  return { ok: true, proposal: { tool: value.tool, args }, via };
}

type Unfenced = { ok: true; body: string } | { ok: false; reason: string };

/** Strips one ``` / ```json fence around the whole reply; text outside the fence is refused. */
function unfence(text: string): Unfenced {
  if (!text.startsWith('```')) return { ok: true, body: text };
  const match = /^```([A-Za-z0-9_+-]*)[^\S\n]*\n?([\s\S]*?)\s*```$/.exec(text);
  if (!match) {
    return text.indexOf('```', 3) === -1
      ? { ok: false, reason: 'unterminated ``` fence' }
      : { ok: false, reason: 'expected one JSON object, found text after the ``` fence' };
  }
  const language = match[1]!;
  if (language !== '' && language.toLowerCase() !== 'json') {
    return { ok: false, reason: `a \`\`\`${language} fence: only a single \`\`\`json fence is accepted` };
  }
  const body = match[2]!.trim();
  if (body.includes('```'))
    return { ok: false, reason: 'more than one ``` fence: expected a single ```json fence' };
  return { ok: true, body };
}

/** The no-op reason of a failed strict read: malformed (syntax, duplicate key) or too deep. */
function scanReason(scan: Extract<JsonScan, { ok: false }>, where = ''): string {
  if (scan.kind === 'too_deep') return `JSON${where} ${scan.reason}`;
  return `malformed JSON${where}: ${scan.reason}`;
}

function sizeNoOp(text: string, where = ''): ParsedReply | null {
  // A UTF-8 byte is at least a UTF-16 unit's worth of text only up to 3×: skip the count when short.
  if (text.length * 3 <= MAX_REPLY_BYTES) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > MAX_REPLY_BYTES
    ? noOp(`reply too large: ${bytes} bytes${where}, over the 1 MiB cap (${MAX_REPLY_BYTES} bytes)`)
    : null;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function tryParseStrict(text: string): unknown {
  const scan = parseStrictJson(text);
  return scan.ok ? scan.value : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON's name for a value's type: string, number, boolean, null, array, object. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
