// A ChatModel over Anthropic's Messages API (`POST {base}/v1/messages`). It speaks the native-tools
// protocol: the retrieved tools go out as {name, description, input_schema}, and every `tool_use`
// block of the reply comes back as a ToolCall (deciding that two calls in one reply is a violation is
// the policy layer's job, as for the OpenAI client). The system prompt travels in its own field, as
// the API requires; retries, usage, prices and errors work as for the OpenAI-compatible client.
import type { Dispatcher } from 'undici';
import { completeOverHttp, type ParsedReply } from './http-completion.js';
import { checkBaseUrl, type Endpoint } from './http-json.js';
import { estimateTokens, type PriceTable } from './pricing.js';
import { ANTHROPIC } from './provider.js';
import { DEFAULT_RETRY, type RetryEffects, type RetryPolicy } from './retry.js';
import {
  ModelError,
  type ChatMessage,
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  type FinishReason,
  type ToolCall,
  type Usage,
} from './types.js';

export interface AnthropicOptions {
  /** The API root without /v1, e.g. https://api.anthropic.com. */
  baseUrl: string;
  apiKey: string;
  /** The model name the API knows, e.g. `claude-sonnet-4-5`. */
  model: string;
  prices?: PriceTable;
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
  /** Injected sleep / randomness for tests. */
  effects?: RetryEffects;
}

export class AnthropicMessagesModel implements ChatModel {
  readonly id: string;
  readonly protocol = 'tools' as const;
  private readonly endpoint: Endpoint;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: AnthropicOptions) {
    const missing = (what: string, fix: string) => new ModelError('config', `no model ${what}`, { fix });
    if (!options.baseUrl)
      throw missing('base URL', `set ANTHROPIC_BASE_URL, e.g. ${ANTHROPIC.defaultBaseUrl}`);
    if (!options.apiKey) throw missing('API key', 'set ANTHROPIC_API_KEY');
    if (!options.model) throw missing('name', 'pass --model anthropic:NAME or set PIPER_MODEL');
    checkBaseUrl(options.baseUrl, ANTHROPIC);
    this.id = `anthropic:${options.model}`;
    this.endpoint = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      dispatcher: options.dispatcher,
      provider: ANTHROPIC,
    };
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    const body = this.requestBody(req);
    return completeOverHttp(
      {
        endpoint: this.endpoint,
        path: 'v1/messages',
        body,
        parse: parseMessage,
        estimate: (parsed) => estimateUsage(body, parsed),
        retry: this.retry,
        effects: this.options.effects,
        model: this.options.model,
        prices: this.options.prices,
      },
      signal,
    );
  }

  /** The JSON body sent to the API. */
  private requestBody(req: ChatRequest): Record<string, unknown> {
    const system = req.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const body: Record<string, unknown> = {
      model: this.options.model,
      max_tokens: req.maxTokens,
      ...(system ? { system } : {}),
      messages: conversation(req.messages),
      ...(req.temperature === null ? {} : { temperature: req.temperature }),
    };
    if (req.tools && req.tools.length > 0) {
      body.tools = req.tools.map(({ name, description, parameters }) => ({
        name,
        description,
        input_schema: parameters,
      }));
      body.tool_choice = { type: 'auto' };
    }
    return body;
  }
}

/**
 * The user/assistant turns, with neighbours of one role merged: the API wants the roles to
 * alternate, and a prompt may hold two user messages in a row.
 */
function conversation(
  messages: readonly ChatMessage[],
): Array<{ role: 'user' | 'assistant'; content: string }> {
  const out: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const { role, content } of messages) {
    if (role === 'system') continue;
    const last = out.at(-1);
    if (last?.role === role) last.content = `${last.content}\n\n${content}`;
    else out.push({ role, content });
  }
  return out;
}

/** Reads a Messages API reply; a string is the reason the body is unusable. */
function parseMessage(json: unknown): ParsedReply | string {
  if (!isObject(json)) return 'the message reply is not a JSON object';
  if (json.type === 'error' || isObject(json.error)) {
    const error = isObject(json.error) ? json.error : {};
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(json.error);
    return `the model server returned an error object: ${message}`;
  }
  if (!Array.isArray(json.content)) return 'the message reply has no content list';
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [i, block] of json.content.entries()) {
    if (!isObject(block)) return `content[${i}] is not an object`;
    if (block.type === 'text') {
      if (typeof block.text !== 'string') return `content[${i}].text is not a string`;
      texts.push(block.text);
    } else if (block.type === 'tool_use') {
      if (typeof block.name !== 'string') return `content[${i}] (tool_use) has no name`;
      toolCalls.push({ name: block.name, arguments: inputText(block.input) });
    }
    // Other block kinds (thinking, ...) are not the model's answer: left out.
  }
  const usage = parseUsage(json.usage);
  return {
    text: texts.length > 0 ? texts.join('') : null,
    toolCalls,
    usage,
    model: typeof json.model === 'string' && json.model !== '' ? json.model : null,
    finishReason: finishReasonOf(json.stop_reason),
  };
}

/** stop_reason in the shared vocabulary: max_tokens is the cut a no-op turn must name. */
function finishReasonOf(value: unknown): FinishReason {
  if (value === 'max_tokens') return 'length';
  if (value === 'tool_use') return 'tool_calls';
  return value === 'end_turn' || value === 'stop_sequence' ? 'stop' : 'other';
}

/**
 * The tool input as JSON text, as the policy reads every call's arguments. Input nested too deep
 * for JSON.stringify (a hostile server) becomes an opening run of brackets the strict reader
 * refuses as too deep: a no-op turn, not an exception that ends the run.
 */
function inputText(input: unknown): string {
  if (input === undefined) return '';
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return '['.repeat(1000);
  }
}

/** For a compatible server that reports no usage, so token caps still bite. */
function estimateUsage(body: Record<string, unknown>, parsed: ParsedReply): Usage {
  const completion = (parsed.text ?? '') + parsed.toolCalls.map((c) => c.name + c.arguments).join('');
  return { promptTokens: estimateTokens(JSON.stringify(body)), completionTokens: estimateTokens(completion) };
}

function parseUsage(usage: unknown): Usage | null {
  if (!isObject(usage)) return null;
  const { input_tokens: prompt, output_tokens: completion } = usage;
  if (!isCount(prompt) || !isCount(completion)) return null;
  return { promptTokens: prompt, completionTokens: completion };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
