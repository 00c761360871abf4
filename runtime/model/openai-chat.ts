// A ChatModel over any OpenAI-compatible `POST {baseUrl}/chat/completions` (DeepSeek, OpenAI, vLLM,
// llama.cpp server, Ollama, OpenRouter). Protocol 'json' sends only messages and reads the spec's
// JSON object from the reply text; protocol 'tools' also offers the retrieved tools as native
// functions and returns every call the model made — deciding that two calls in one reply is a
// violation is the policy layer's job, not this client's.
import type { Dispatcher } from 'undici';
import { completeOverHttp, type ParsedReply } from './http-completion.js';
import { checkBaseUrl, type Endpoint } from './http-json.js';
import { estimateTokens, type PriceTable } from './pricing.js';
import { DEFAULT_RETRY, type RetryEffects, type RetryPolicy } from './retry.js';
import {
  ModelError,
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  type FinishReason,
  type Protocol,
  type ToolCall,
  type Usage,
} from './types.js';

export interface OpenAIChatOptions {
  baseUrl: string;
  apiKey: string;
  /** The model name the server knows, e.g. `deepseek-chat`. */
  model: string;
  protocol: Protocol;
  prices?: PriceTable;
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
  /** Injected sleep / randomness for tests. */
  effects?: RetryEffects;
}

export class OpenAIChatModel implements ChatModel {
  readonly id: string;
  readonly protocol: Protocol;
  private readonly endpoint: Endpoint;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: OpenAIChatOptions) {
    const missing = (what: string, fix: string) => new ModelError('config', `no model ${what}`, { fix });
    if (!options.baseUrl) throw missing('base URL', 'set OPENAI_BASE_URL, e.g. https://api.deepseek.com/v1');
    if (!options.apiKey)
      throw missing('API key', 'set OPENAI_API_KEY (any value for a server that needs none)');
    if (!options.model) throw missing('name', 'pass --model openai:NAME or set PIPER_MODEL');
    checkBaseUrl(options.baseUrl);
    this.protocol = options.protocol;
    this.id = `${options.protocol === 'tools' ? 'openai-tools' : 'openai'}:${options.model}`;
    this.endpoint = { baseUrl: options.baseUrl, apiKey: options.apiKey, dispatcher: options.dispatcher };
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    return completeOverHttp(
      {
        endpoint: this.endpoint,
        path: 'chat/completions',
        body: this.requestBody(req),
        parse: parseCompletion,
        estimate: (parsed) => estimateUsage(req, parsed),
        retry: this.retry,
        effects: this.options.effects,
        model: this.options.model,
        prices: this.options.prices,
      },
      signal,
    );
  }

  /** The JSON body sent to the server. */
  private requestBody(req: ChatRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.options.model,
      messages: req.messages.map(({ role, content }) => ({ role, content })),
      // Some models refuse any temperature but their own: null leaves the key out.
      ...(req.temperature === null ? {} : { temperature: req.temperature }),
      max_tokens: req.maxTokens,
    };
    if (this.protocol === 'tools' && req.tools && req.tools.length > 0) {
      body.tools = req.tools.map(({ name, description, parameters }) => ({
        type: 'function',
        function: { name, description, parameters },
      }));
      body.tool_choice = 'auto';
    }
    return body;
  }
}

/** Reads choices[0].message of a chat completion; a string is the reason the body is unusable. */
function parseCompletion(json: unknown): ParsedReply | string {
  if (!isObject(json)) return 'the chat completion is not a JSON object';
  if (isObject(json.error)) {
    const message = typeof json.error.message === 'string' ? json.error.message : JSON.stringify(json.error);
    return `the model server returned an error object: ${message}`;
  }
  if (!Array.isArray(json.choices) || json.choices.length === 0) return 'the chat completion has no choices';
  const choice: unknown = json.choices[0];
  if (!isObject(choice) || !isObject(choice.message)) return 'choices[0] has no message';
  const message = choice.message;

  const content = message.content;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    return 'choices[0].message.content is neither a string nor null';
  }
  const toolCalls = parseToolCalls(message.tool_calls, message.function_call);
  if (typeof toolCalls === 'string') return toolCalls;

  return {
    text: content ?? null,
    toolCalls,
    usage: parseUsage(json.usage),
    model: typeof json.model === 'string' && json.model !== '' ? json.model : null,
    finishReason: finishReasonOf(choice.finish_reason),
  };
}

/** OpenAI's finish_reason in the shared vocabulary; `function_call` is the legacy `tool_calls`. */
function finishReasonOf(value: unknown): FinishReason {
  if (value === 'stop' || value === 'length' || value === 'tool_calls') return value;
  return value === 'function_call' ? 'tool_calls' : 'other';
}

function parseToolCalls(toolCalls: unknown, legacyCall: unknown): ToolCall[] | string {
  if (toolCalls !== undefined && toolCalls !== null && !Array.isArray(toolCalls)) {
    return 'choices[0].message.tool_calls is not a list';
  }
  // Older servers send a single `function_call` instead of `tool_calls`.
  const list: unknown[] = Array.isArray(toolCalls)
    ? toolCalls
    : isObject(legacyCall)
      ? [{ function: legacyCall }]
      : [];
  const calls: ToolCall[] = [];
  for (const [i, call] of list.entries()) {
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(fn) || typeof fn.name !== 'string') return `tool_calls[${i}] has no function name`;
    // Keep the arguments as the text the model wrote; a server that pre-parsed them gets them back
    // as JSON text, and absent arguments stay absent (empty text) for the validator to judge.
    const args = typeof fn.arguments === 'string' ? fn.arguments : argumentsText(fn.arguments);
    calls.push({ name: fn.name, arguments: args });
  }
  return calls;
}

/**
 * Pre-parsed arguments as JSON text. Nesting too deep for JSON.stringify's recursion (a hostile
 * server) becomes an opening run of brackets that the policy's strict reader refuses as too deep,
 * so the turn is a no-op with that reason rather than an exception that ends the run.
 */
function argumentsText(args: unknown): string {
  try {
    return JSON.stringify(args) ?? '';
  } catch {
    return '['.repeat(1000);
  }
}

function parseUsage(usage: unknown): Usage | null {
  if (!isObject(usage)) return null;
  const { prompt_tokens: prompt, completion_tokens: completion } = usage;
  if (!isCount(prompt) || !isCount(completion)) return null;
  return { promptTokens: prompt, completionTokens: completion };
}

/** For servers that report no usage, so token caps still bite. */
function estimateUsage(req: ChatRequest, parsed: ParsedReply): Usage {
  const tools = req.tools && req.tools.length > 0 ? JSON.stringify(req.tools) : '';
  const prompt = req.messages.map((m) => m.content).join('\n') + tools;
  const completion = (parsed.text ?? '') + parsed.toolCalls.map((c) => c.name + c.arguments).join('');
  return { promptTokens: estimateTokens(prompt), completionTokens: estimateTokens(completion) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
