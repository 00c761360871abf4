// An embeddings client for any OpenAI-compatible `POST {baseUrl}/embeddings`, with the same
// bounded retries as the chat client. Used by `search_code` dense retrieval and `RETRIEVE=embed`,
// both off unless configured.
import type { Dispatcher } from 'undici';
import { checkBaseUrl, postJson, protocolFailure, type Endpoint } from './http-json.js';
import { DEFAULT_RETRY, withRetries, type RetryEffects, type RetryPolicy } from './retry.js';
import { ModelError, type Attempt, type EmbeddingsModel } from './types.js';

export interface EmbeddingsOptions {
  baseUrl: string;
  apiKey: string;
  /** The embedding model name the server knows, e.g. `text-embedding-3-small`. */
  model: string;
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
  effects?: RetryEffects;
}

export class OpenAIEmbeddings implements EmbeddingsModel {
  private readonly endpoint: Endpoint;
  private readonly retry: RetryPolicy;
  /** The attempts of the most recent embed() call, for whoever records it. */
  lastAttempts: Attempt[] = [];

  constructor(private readonly options: EmbeddingsOptions) {
    const missing = (what: string, fix: string) => new ModelError('config', `no embeddings ${what}`, { fix });
    if (!options.baseUrl) throw missing('base URL', 'set OPENAI_BASE_URL for the embeddings server');
    if (!options.apiKey)
      throw missing('API key', 'set OPENAI_API_KEY (any value for a server that needs none)');
    if (!options.model) throw missing('model name', 'configure the embeddings model name');
    checkBaseUrl(options.baseUrl);
    this.endpoint = { baseUrl: options.baseUrl, apiKey: options.apiKey, dispatcher: options.dispatcher };
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    this.lastAttempts = [];
    if (texts.length === 0) return [];
    const body = { model: this.options.model, input: texts };
    try {
      const { value, attempts } = await withRetries(
        this.retry,
        async (attemptSignal) => {
          const reply = await postJson(this.endpoint, 'embeddings', body, attemptSignal);
          if (!reply.ok) return reply;
          const vectors = parseEmbeddings(reply.value.json, texts.length);
          if (typeof vectors === 'string') return protocolFailure(reply.status, vectors, reply.value.raw);
          return { ok: true, status: reply.status, value: vectors };
        },
        signal,
        this.options.effects,
      );
      this.lastAttempts = attempts;
      return value;
    } catch (error) {
      if (error instanceof ModelError) this.lastAttempts = error.attempts;
      throw error;
    }
  }
}

/**
 * The vectors of an embeddings body in input order (servers may return `data` in any order; each
 * item says its `index`). A string is the reason the body is unusable.
 */
function parseEmbeddings(json: unknown, expected: number): number[][] | string {
  const data = typeof json === 'object' && json !== null ? (json as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return 'the embeddings reply has no data list';
  if (data.length !== expected)
    return `the embeddings reply has ${data.length} vectors for ${expected} inputs`;
  const vectors: number[][] = new Array<number[]>(expected);
  for (const [position, item] of data.entries()) {
    const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown };
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      return `data[${position}].embedding is not a list of numbers`;
    }
    const at = typeof index === 'number' ? index : position;
    if (!Number.isInteger(at) || at < 0 || at >= expected || vectors[at] !== undefined) {
      return `data[${position}].index ${String(index)} is out of range or repeated`;
    }
    vectors[at] = embedding as number[];
  }
  const dims = vectors[0]?.length;
  if (vectors.some((v) => v.length !== dims)) return 'the embeddings reply mixes vector lengths';
  return vectors;
}
