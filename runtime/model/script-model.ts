// A ChatModel that replays a script instead of calling a server: demos, tests, CI, and replay of a
// recorded run. `--model script:FILE.jsonl` holds one raw completion per line, consumed one per
// complete() call, in order. A line is either a JSON string — the assistant's message text
// verbatim, malformed text included — or an object
//   {"content"?: string | null, "tool_calls"?: [{"name", "arguments"}], "usage"?: {...}}
// Blank lines and lines starting with `//` are skipped. Running out is a `script_exhausted` error.
import { readRegularFile } from '../host/open-regular.js';
import { estimateTokens } from './pricing.js';
import {
  ModelError,
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  type Protocol,
  type ToolCall,
  type Usage,
} from './types.js';

/** One scripted completion. */
export interface ScriptEntry {
  text: string | null;
  toolCalls: ToolCall[];
  /** null: estimated from the request and the reply, 4 characters a token. */
  usage: Usage | null;
  /** The script line (or the replayed reply) exactly as given. */
  raw: string;
}

export interface ScriptModelOptions {
  id: string;
  /** Default: 'tools' when any entry carries tool calls, else 'json'. */
  protocol?: Protocol;
}

export class ScriptModel implements ChatModel {
  readonly id: string;
  readonly protocol: Protocol;
  private next = 0;

  constructor(
    private readonly entries: readonly ScriptEntry[],
    options: ScriptModelOptions,
  ) {
    this.id = options.id;
    this.protocol = options.protocol ?? (entries.some((e) => e.toolCalls.length > 0) ? 'tools' : 'json');
  }

  /** Replies not yet consumed. */
  get remaining(): number {
    return this.entries.length - this.next;
  }

  async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    if (signal?.aborted) throw new ModelError('aborted', 'the model call was cancelled');
    const entry = this.entries[this.next];
    if (!entry) {
      throw new ModelError(
        'script_exhausted',
        `the script ${this.id} has no reply left for model call ${this.next + 1} ` +
          `(it holds ${this.entries.length})`,
        { fix: 'add lines to the script, or end it with a stop line' },
      );
    }
    this.next++;
    const usage = entry.usage ?? {
      promptTokens: estimateTokens(promptText(req)),
      completionTokens: estimateTokens(
        (entry.text ?? '') + entry.toolCalls.map((c) => c.name + c.arguments).join(''),
      ),
    };
    return {
      text: entry.text,
      toolCalls: entry.toolCalls.map((c) => ({ ...c })),
      usage,
      costUsd: 0,
      raw: entry.raw,
      attempts: [{ n: 1, status: null, error: null, ms: 0, retryInMs: null }],
      model: 'script',
    };
  }
}

/** The most a model script may hold: a long scripted run is a few hundred KiB. */
const SCRIPT_LIMIT = 16 * 1024 * 1024;

/**
 * A model script's text: a regular file only (a FIFO, a device or /dev/zero is refused, never read
 * or waited on), refused before reading past SCRIPT_LIMIT.
 */
export function readScriptText(file: string): string {
  const bytes = readRegularFile(file, {
    limit: SCRIPT_LIMIT,
    name: `the model script ${file}`,
    what: 'a model script',
  });
  if (Buffer.isBuffer(bytes)) return bytes.toString('utf8');
  const message = bytes.kind === 'missing' ? `cannot read the model script ${file} (ENOENT)` : bytes.error;
  throw new ModelError('config', message, {
    fix: 'pass --model script:PATH with a JSONL file of completions, one per line',
  });
}

/** `script:FILE` — the file is read once, now, so a bad line fails before the run starts. */
export function loadScriptModel(file: string, options: Partial<ScriptModelOptions> = {}): ScriptModel {
  return new ScriptModel(parseScript(readScriptText(file), file), { id: `script:${file}`, ...options });
}

/**
 * Replays raw model outputs (e.g. the raw_output column of a recorded run's turns): each string is
 * the assistant's message text verbatim, with no script syntax — comments and blanks included.
 */
export function scriptModelFromReplies(
  lines: string[],
  options: Partial<ScriptModelOptions> = {},
): ScriptModel {
  const entries = lines.map((text) => ({ text, toolCalls: [], usage: null, raw: text }));
  return new ScriptModel(entries, { id: 'script:replay', ...options });
}

/** A reply as one script line that replays it (tool calls and usage included). */
export function scriptLine(reply: Pick<ChatReply, 'text' | 'toolCalls' | 'usage'>): string {
  return JSON.stringify({
    content: reply.text,
    ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
    usage: { prompt_tokens: reply.usage.promptTokens, completion_tokens: reply.usage.completionTokens },
  });
}

/** Every entry of a JSONL script; a line that is neither form is a `config` error naming it. */
export function parseScript(text: string, source: string): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//')) continue;
    const entry = parseLine(trimmed);
    if (typeof entry === 'string') {
      throw new ModelError('config', `${source}:${i + 1}: ${entry}`, {
        fix: 'write each line as a JSON string (the reply text) or {"content", "tool_calls", "usage"}',
      });
    }
    entries.push(entry);
  }
  return entries;
}

const LINE_KEYS = new Set(['content', 'tool_calls', 'usage']);

function parseLine(line: string): ScriptEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON (to script malformed text, write it as a JSON string)';
  }
  if (typeof value === 'string') return { text: value, toolCalls: [], usage: null, raw: line };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'a line must be a JSON string or an object';
  }
  const object = value as Record<string, unknown>;
  const unknownKey = Object.keys(object).find((k) => !LINE_KEYS.has(k));
  if (unknownKey !== undefined) return `unknown key ${JSON.stringify(unknownKey)}`;

  const { content } = object;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    return '"content" must be a string or null';
  }
  const toolCalls = parseCalls(object.tool_calls);
  if (typeof toolCalls === 'string') return toolCalls;
  const usage = parseScriptUsage(object.usage);
  if (typeof usage === 'string') return usage;
  return { text: content ?? null, toolCalls, usage, raw: line };
}

function parseCalls(value: unknown): ToolCall[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return '"tool_calls" must be a list';
  const calls: ToolCall[] = [];
  for (const [i, call] of value.entries()) {
    const { name, arguments: args } = (call ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') return `tool_calls[${i}] needs a string "name"`;
    // Arguments are raw JSON text, as a model sends them; an object is accepted for convenience.
    if (typeof args === 'string') calls.push({ name, arguments: args });
    else if (typeof args === 'object' && args !== null) calls.push({ name, arguments: JSON.stringify(args) });
    else return `tool_calls[${i}] needs "arguments" (JSON text or an object)`;
  }
  return calls;
}

function parseScriptUsage(value: unknown): Usage | null | string {
  if (value === undefined) return null;
  const u = (value ?? {}) as Record<string, unknown>;
  const prompt = u.prompt_tokens ?? u.promptTokens;
  const completion = u.completion_tokens ?? u.completionTokens;
  const isCount = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  if (!isCount(prompt) || !isCount(completion)) {
    return '"usage" needs whole-number prompt_tokens and completion_tokens';
  }
  return { promptTokens: prompt as number, completionTokens: completion as number };
}

function promptText(req: ChatRequest): string {
  const tools = req.tools && req.tools.length > 0 ? JSON.stringify(req.tools) : '';
  return req.messages.map((m) => m.content).join('\n') + tools;
}
