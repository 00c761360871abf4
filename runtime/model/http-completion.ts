// One completion request over HTTP, the part both hosted clients (OpenAI-compatible and Anthropic)
// share: post with retries, parse the body (a body that does not parse is a protocol failure, not
// retried), then settle usage (the server's, else an estimate), the model name and the cost.
import { postJson, protocolFailure, type Endpoint } from './http-json.js';
import { costUsd, type PriceTable } from './pricing.js';
import { withRetries, type RetryEffects, type RetryPolicy } from './retry.js';
import type { ChatReply, FinishReason, ToolCall, Usage } from './types.js';

/** What a reply body says, before usage and cost are settled. */
export interface ParsedReply {
  text: string | null;
  toolCalls: ToolCall[];
  usage: Usage | null;
  model: string | null;
  finishReason: FinishReason;
}

export interface CompletionRequest<P extends ParsedReply> {
  endpoint: Endpoint;
  path: string;
  body: unknown;
  /** The reply body → its parts, or why it is not a reply. */
  parse: (json: unknown) => P | string;
  /** Usage when the server reports none. */
  estimate: (parsed: P) => Usage;
  retry: RetryPolicy;
  effects?: RetryEffects;
  /** The model name asked for: prices are looked up under it and the name the server answers with. */
  model: string;
  prices?: PriceTable;
}

export async function completeOverHttp<P extends ParsedReply>(
  r: CompletionRequest<P>,
  signal?: AbortSignal,
): Promise<ChatReply> {
  const { value, attempts } = await withRetries(
    r.retry,
    async (attemptSignal) => {
      const reply = await postJson(r.endpoint, r.path, r.body, attemptSignal);
      if (!reply.ok) return reply;
      const parsed = r.parse(reply.value.json);
      if (typeof parsed === 'string')
        return protocolFailure(reply.status, parsed, reply.value.raw, r.endpoint.provider);
      return { ok: true, status: reply.status, value: { parsed, raw: reply.value.raw } };
    },
    signal,
    r.effects,
  );
  const { parsed, raw } = value;
  const model = parsed.model ?? r.model;
  const usage = parsed.usage ?? r.estimate(parsed);
  const cost = costUsd(r.prices ?? {}, [r.model, model], usage);
  const { text, toolCalls, finishReason } = parsed;
  return { text, toolCalls, usage, costUsd: cost, raw, attempts, model, finishReason };
}
