// A fake OpenAI-compatible server for tests, over real HTTP on 127.0.0.1 (ephemeral port). It
// answers each request with the next scripted behaviour — a normal reply, tool calls (one or
// several), an embeddings reply, a body that is not JSON, a status with Retry-After, a hang, a
// dropped connection — and records every request it received for assertions.
import type { ServerResponse } from 'node:http';
import { ScriptedHttpServer, sendJson as send, type ScriptedRequest } from './scripted-http-server.js';

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type Behaviour =
  | {
      kind: 'reply';
      content?: string | null;
      toolCalls?: Array<{ name: string; arguments: string }>;
      /** null: the body carries no usage at all. */
      usage?: FakeUsage | null;
      model?: string;
      /** Default: tool_calls when there are calls, else stop. */
      finishReason?: string;
    }
  | { kind: 'embeddings'; vectors: number[][]; reversed?: boolean }
  /** 200 with any JSON body, e.g. one that is not a chat completion. */
  | { kind: 'json'; body: unknown }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed'; body: string }
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** Headers (and, with `partial`, the start of a body) but never the end: for timeouts. */
  | { kind: 'hang'; partial?: boolean }
  /** The connection is destroyed without an answer: a network error. */
  | { kind: 'drop' };

export const behave = {
  text: (
    content: string,
    usage: FakeUsage | null = { prompt_tokens: 11, completion_tokens: 7 },
  ): Behaviour => ({
    kind: 'reply',
    content,
    usage,
  }),
  toolCalls: (
    calls: Array<{ name: string; arguments: string }>,
    usage: FakeUsage = { prompt_tokens: 11, completion_tokens: 7 },
  ): Behaviour => ({ kind: 'reply', content: null, toolCalls: calls, usage }),
  malformed: (body = '{"choices": [ this is not json'): Behaviour => ({ kind: 'malformed', body }),
  rateLimited: (headers: Record<string, string> = { 'retry-after': '1' }): Behaviour => ({
    kind: 'status',
    status: 429,
    body: '{"error":{"message":"rate limited"}}',
    headers,
  }),
  serverError: (status = 500): Behaviour => ({
    kind: 'status',
    status,
    body: '{"error":{"message":"boom"}}',
  }),
  hang: (): Behaviour => ({ kind: 'hang' }),
  drop: (): Behaviour => ({ kind: 'drop' }),
  embeddings: (vectors: number[][], reversed = false): Behaviour => ({
    kind: 'embeddings',
    vectors,
    reversed,
  }),
};

export class FakeOpenAIServer extends ScriptedHttpServer<Behaviour> {
  /** baseUrl is e.g. http://127.0.0.1:41234/v1 — what OPENAI_BASE_URL would be. */
  static start(): Promise<FakeOpenAIServer> {
    return new FakeOpenAIServer().listen('/v1');
  }

  protected respond(
    behaviour: Behaviour | undefined,
    { model, n }: ScriptedRequest,
    res: ServerResponse,
  ): void {
    if (!behaviour) {
      // 418 is not retryable, so a test that under-scripts fails at once with this reason.
      return send(
        res,
        418,
        JSON.stringify({ error: { message: 'fake server: no scripted behaviour left' } }),
      );
    }
    switch (behaviour.kind) {
      case 'reply':
        return send(res, 200, JSON.stringify(completion(behaviour, model, n)));
      case 'embeddings': {
        const data = behaviour.vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
        if (behaviour.reversed) data.reverse();
        const usage = { prompt_tokens: 3, total_tokens: 3 };
        return send(res, 200, JSON.stringify({ object: 'list', data, model, usage }));
      }
      case 'json':
        return send(res, 200, JSON.stringify(behaviour.body));
      case 'malformed':
        return send(res, 200, behaviour.body);
      case 'status':
        return send(res, behaviour.status, behaviour.body ?? '', behaviour.headers);
      case 'hang':
        res.writeHead(200, { 'content-type': 'application/json' });
        if (behaviour.partial) res.write('{"choices": [');
        else res.flushHeaders();
        return;
      case 'drop':
        res.socket?.destroy();
        return;
    }
  }
}

function completion(reply: Extract<Behaviour, { kind: 'reply' }>, model: string, n: number): object {
  const toolCalls = reply.toolCalls ?? [];
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content ?? null };
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call, i) => ({
      id: `call_${n}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const body: Record<string, unknown> = {
    id: `chatcmpl-fake-${n}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: reply.model ?? model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
  };
  if (reply.usage) {
    const { prompt_tokens, completion_tokens } = reply.usage;
    body.usage = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  }
  return body;
}
