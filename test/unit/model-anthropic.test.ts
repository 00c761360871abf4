// The Anthropic Messages API client over real HTTP against a fake server on 127.0.0.1: the request
// (headers, path, system apart, tools as input_schema), the reply (tool_use → tool calls, usage,
// cost, stop_reason), retries on 429 / 529 with retry-after, and a refused key as an `auth` error.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicMessagesModel, type AnthropicOptions } from '../../runtime/model/anthropic-messages.js';
import { ANTHROPIC_VERSION } from '../../runtime/model/provider.js';
import { resolveModel } from '../../runtime/model/resolve.js';
import { ModelError, type ChatRequest } from '../../runtime/model/types.js';
import { anthropic, FakeAnthropicServer } from '../helpers/fake-anthropic-server.js';

let server: FakeAnthropicServer;
beforeAll(async () => {
  server = await FakeAnthropicServer.start();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  expect(server.pending).toBe(0);
  server.requests.length = 0;
});

const KEY = 'sk-ant-test-123';

function claude(options: Partial<AnthropicOptions> = {}): AnthropicMessagesModel {
  return new AnthropicMessagesModel({
    baseUrl: server.baseUrl,
    apiKey: KEY,
    model: 'claude-test',
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are piper-agent.' },
    { role: 'user', content: 'Candidate tools: read_entity' },
  ],
  tools: [
    {
      name: 'read_entity',
      description: 'Read one entity by selector',
      parameters: { type: 'object', properties: { selector: { type: 'string' } }, required: ['selector'] },
    },
  ],
  temperature: 0,
  maxTokens: 256,
};

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected a ModelError');
}

describe('Anthropic Messages API over HTTP', () => {
  it('sends x-api-key and anthropic-version to /v1/messages, the system prompt apart, tools as input_schema', async () => {
    server.enqueue(anthropic.toolUse('read_entity', { selector: 'textstats.words.top_words' }));
    const reply = await claude().complete(REQUEST);
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1/messages');
    expect(req?.headers['x-api-key']).toBe(KEY);
    expect(req?.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    expect(req?.headers.authorization).toBeUndefined();
    expect(req?.body).toEqual({
      model: 'claude-test',
      max_tokens: 256,
      system: 'You are piper-agent.',
      messages: [{ role: 'user', content: 'Candidate tools: read_entity' }],
      temperature: 0,
      tools: [
        {
          name: 'read_entity',
          description: 'Read one entity by selector',
          input_schema: REQUEST.tools![0]!.parameters,
        },
      ],
      tool_choice: { type: 'auto' },
    });
    expect(reply.toolCalls).toEqual([
      { name: 'read_entity', arguments: '{"selector":"textstats.words.top_words"}' },
    ]);
    expect(reply.text).toBeNull();
    expect(reply.usage).toEqual({ promptTokens: 13, completionTokens: 5 });
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.model).toBe('claude-test');
    expect(reply.attempts).toHaveLength(1);
  });

  it('returns every tool_use block (two are the policy layer’s violation to judge) and the text', async () => {
    server.enqueue({
      kind: 'message',
      content: [
        { type: 'text', text: 'Reading both.' },
        { type: 'tool_use', name: 'read_entity', input: { selector: 'a' } },
        { type: 'tool_use', name: 'read_entity', input: { selector: 'b' } },
      ],
      stopReason: 'tool_use',
    });
    const reply = await claude().complete(REQUEST);
    expect(reply.text).toBe('Reading both.');
    expect(reply.toolCalls.map((c) => c.arguments)).toEqual(['{"selector":"a"}', '{"selector":"b"}']);
  });

  it('leaves temperature out when it is null, and reads stop_reason max_tokens as a cut reply', async () => {
    server.enqueue(anthropic.text('{"tool": "read_en', 'max_tokens'));
    const reply = await claude().complete({ ...REQUEST, temperature: null, maxTokens: 8 });
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect('temperature' in body).toBe(false);
    expect(body.max_tokens).toBe(8);
    expect(reply.finishReason).toBe('length');
  });

  it('prices usage from the price table, as for OpenAI', async () => {
    server.enqueue({
      kind: 'message',
      content: [{ type: 'text', text: '{}' }],
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
    const prices = { 'claude-test': { promptPerMillion: 3, completionPerMillion: 15 } };
    const reply = await claude({ prices }).complete(REQUEST);
    expect(reply.costUsd).toBe(0.0045);
  });

  it('retries 429 (honouring retry-after) and 529 overloaded, then succeeds; every attempt recorded', async () => {
    server.enqueue(
      anthropic.error(429, 'rate_limit_error', { 'retry-after': '0' }),
      anthropic.error(529, 'overloaded_error'),
      anthropic.text('{"tool": "stop", "args": {"reason": "done"}}'),
    );
    const reply = await claude().complete(REQUEST);
    expect(reply.attempts.map((a) => a.status)).toEqual([429, 529, 200]);
    expect(reply.attempts[0]?.retryInMs).toBe(0);
    expect(server.requests).toHaveLength(3);
  });

  it('a 401 is a final auth error: "the API key was refused by URL", naming ANTHROPIC_API_KEY', async () => {
    server.enqueue(anthropic.error(401, 'authentication_error'));
    const error = await failure(claude().complete(REQUEST));
    expect(error.kind).toBe('auth');
    expect(error.message).toContain(`the API key was refused by ${server.baseUrl} (HTTP 401`);
    expect(error.fix).toBe('check ANTHROPIC_API_KEY: the server did not accept it');
    expect(error.attempts).toHaveLength(1);
  });

  it('a 404 (unknown model) is final and names ANTHROPIC_BASE_URL and the model name', async () => {
    server.enqueue(anthropic.error(404, 'not_found_error'));
    const error = await failure(claude().complete(REQUEST));
    expect(error.kind).toBe('http');
    expect(error.fix).toContain('ANTHROPIC_BASE_URL');
    expect(error.fix).toContain('model name');
  });

  it('a 200 that is not a message is a protocol error', async () => {
    server.enqueue({ kind: 'json', body: { type: 'message', content: 'not a list' } });
    const error = await failure(claude().complete(REQUEST));
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('no content list');
  });
});

describe('resolveModel anthropic:NAME', () => {
  it('reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, never the OpenAI key', async () => {
    server.enqueue(anthropic.text('hi'));
    const model = resolveModel('anthropic:claude-test', {
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-openai' },
      config: { apiKey: 'sk-openai-config', retry: { baseDelayMs: 1 } },
    });
    expect(model).toMatchObject({ id: 'anthropic:claude-test', protocol: 'tools' });
    await model.complete(REQUEST);
    expect(server.requests[0]?.headers['x-api-key']).toBe(KEY);
  });
});
