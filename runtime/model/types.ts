// The one interface the agent loop uses to talk to a model (docs/architecture.md), and the closed set
// of ways that talk can fail. Every client (OpenAI-compatible HTTP, the script model) implements
// ChatModel; callers branch on ModelError.kind, never on message text.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: object;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Offered as native functions when the model speaks protocol 'tools'; ignored by protocol 'json'. */
  tools?: ToolSpec[];
  /** null: the request carries no temperature at all (for models that refuse one). */
  temperature: number | null;
  /** The completion-token limit of the reply. */
  maxTokens: number;
}

export interface ToolCall {
  name: string;
  /** Raw JSON text as the model sent it: parsing and validating it is the policy layer's job. */
  arguments: string;
}

/** One HTTP attempt (or the single in-process "attempt" of a script model). */
export interface Attempt {
  n: number;
  /** HTTP status, null when no response arrived (network error, timeout). */
  status: number | null;
  error: string | null;
  ms: number;
  /** The wait before the next attempt; null when there is none. */
  retryInMs: number | null;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatReply {
  text: string | null;
  /** Every call the model made. More than one is a protocol violation the policy layer rejects. */
  toolCalls: ToolCall[];
  usage: Usage;
  /** null when the model's price is unknown. */
  costUsd: number | null;
  /** The response body as received (a script model: the script line). */
  raw: string;
  attempts: Attempt[];
  /** The model that answered, as the server named it. */
  model: string;
  /** Why the reply ended, as far as the client knows: 'length' = cut at the token limit. */
  finishReason?: FinishReason;
}

/** Why a reply ended, in one vocabulary for every provider ('other' for what none of these is). */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'other';

export type Protocol = 'json' | 'tools';

export interface ChatModel {
  readonly id: string;
  /** 'json': the spec's one JSON object in the message text; 'tools': native function calling. */
  readonly protocol: Protocol;
  /** Rejects only with ModelError. */
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply>;
}

export interface EmbeddingsModel {
  /** One vector per text, in the order given. Rejects only with ModelError. */
  embed(texts: string[]): Promise<number[][]>;
}

export type ModelErrorKind =
  | 'config' // no key / base URL / model name, an unknown scheme, an unreadable script
  | 'auth' // the server refused the API key (401, 403): a configuration error, not a failure
  | 'http' // a status retrying cannot fix (400, 404, 422, ...)
  | 'exhausted' // retryable failures (429, 5xx, network) until the attempts ran out
  | 'timeout' // the last attempt ran past the per-request timeout
  | 'protocol' // a body that is not a chat completion / embeddings response
  | 'script_exhausted' // a script model was asked for more replies than its script holds
  | 'aborted'; // the caller's AbortSignal fired

export interface ModelErrorDetails {
  /** What a person should do about it. */
  fix?: string;
  status?: number;
  /** The first bytes of the response body, for http and protocol errors. */
  bodyExcerpt?: string;
  attempts?: Attempt[];
  cause?: unknown;
}

export class ModelError extends Error {
  readonly fix: string | undefined;
  readonly status: number | undefined;
  readonly bodyExcerpt: string | undefined;
  readonly attempts: Attempt[];

  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    details: ModelErrorDetails = {},
  ) {
    super(details.fix ? `${message}; ${details.fix}` : message, { cause: details.cause });
    this.name = 'ModelError';
    this.fix = details.fix;
    this.status = details.status;
    this.bodyExcerpt = details.bodyExcerpt;
    this.attempts = details.attempts ?? [];
  }
}

export function isModelError(error: unknown, kind?: ModelErrorKind): error is ModelError {
  return error instanceof ModelError && (kind === undefined || error.kind === kind);
}

/** Bodies in error messages are cut here: enough to see the server's complaint, not a whole page. */
export function excerpt(body: string, max = 500): string {
  return body.length <= max ? body : `${body.slice(0, max)}… (${body.length - max} more chars)`;
}
