// Turning a model reply into at most one proposal (spec/tool-calling-policy.md section 5): exactly one
// JSON object `{ "tool": ..., "args": {...} }`, or, on the native function-calling protocol, exactly
// one tool call. Anything else is a no-op turn with a precise reason: recorded, never re-prompted,
// never run. Nothing here throws.

/** What the model asked for, before classification (reserved name or tool) and validation. */
export interface Proposal {
  tool: string;
  args: Record<string, unknown>;
}

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
  const trimmed = text.trim();
  if (trimmed === '') return noOp('empty reply: expected one JSON object');
  const unfenced = unfence(trimmed);
  if (!unfenced.ok) return noOp(unfenced.reason);
  const body = unfenced.body;
  if (body === '') return noOp('empty ```json fence: expected one JSON object');
  if (body.startsWith('[')) {
    const list = tryParse(body);
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
  const end = endOfFirstValue(body);
  if (end === null) return noOp(`malformed JSON: ${parseError(body)}`);
  const rest = body.slice(end).trim();
  if (rest !== '') {
    return noOp(
      rest.startsWith('{')
        ? 'expected exactly one JSON object, got more than one'
        : 'expected one JSON object, found text after it',
    );
  }
  const first = body.slice(0, end);
  const value = tryParse(first);
  if (value === undefined) return noOp(`malformed JSON: ${parseError(first)}`);
  return shapeProposal(value as Record<string, unknown>, 'json');
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
    if (args.trim() === '') args = {};
    else {
      args = tryParse(args);
      if (args === undefined)
        return noOp(
          `malformed JSON in the arguments of ${call.name}: ${parseError(call.arguments as string)}`,
        );
    }
  }
  if (!isPlainObject(args))
    return noOp(`the arguments of ${call.name} must be a JSON object, got ${jsonType(args)}`);
  return { ok: true, proposal: { tool: call.name, args }, via: 'native' };
}

/**
 * A whole reply. Protocol 'json' reads the text only. Protocol 'tools' takes the native calls; a
 * reply without any call falls back to the text, since models offered functions sometimes answer
 * with the spec's JSON object as content instead.
 */
export function parseReply(
  reply: { text: string | null; toolCalls: readonly NativeCall[] },
  protocol: 'json' | 'tools',
): ParsedReply {
  if (protocol === 'json') return parseProposal(reply.text ?? '');
  if (reply.toolCalls.length > 0) return parseNativeCalls(reply.toolCalls);
  if ((reply.text ?? '').trim() === '') return noOp('no tool call in the reply, and no text');
  const fromText = parseProposal(reply.text ?? '');
  return fromText.ok
    ? fromText
    : noOp(`no tool call in the reply, and the text is not a proposal: ${fromText.reason}`);
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

/**
 * Where the first JSON object or array ends: brackets counted outside strings, escapes honoured.
 * null when it never closes (then JSON.parse gives the precise error).
 */
function endOfFirstValue(text: string): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return null;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseError(text: string): string {
  try {
    JSON.parse(text);
    return 'not a JSON object';
  } catch (error) {
    return (error as Error).message;
  }
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
