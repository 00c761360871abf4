// The OpenAI-compatible chat and embeddings clients, over real HTTP against the fake server on
// 127.0.0.1: request shape, reply parsing, retries and their records, every error kind, cost.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIEmbeddings } from '../../runtime/model/embeddings.js';
import { OpenAIChatModel, type OpenAIChatOptions } from '../../runtime/model/openai-chat.js';
import { costUsd, priceOf } from '../../runtime/model/pricing.js';
import { resolveModel } from '../../runtime/model/resolve.js';
import { parseRetryAfter } from '../../runtime/model/retry.js';
import { isModelError, ModelError, type ChatRequest, type ToolSpec } from '../../runtime/model/types.js';
import { behave, FakeOpenAIServer } from '../helpers/fake-openai-server.js';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await FakeOpenAIServer.start();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  // Every test consumes exactly what it scripted.
  expect(server.pending).toBe(0);
  server.requests.length = 0;
});

const KEY = 'sk-test-123';
const FAST = { baseDelayMs: 1, maxDelayMs: 5 };

function chat(options: Partial<OpenAIChatOptions> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    baseUrl: server.baseUrl,
    apiKey: KEY,
    model: 'deepseek-chat',
    protocol: 'json',
    retry: FAST,
    ...options,
  });
}

const READ_ENTITY: ToolSpec = {
  name: 'read_entity',
  description: "read a code entity's signature and optional windowed body",
  parameters: { type: 'object', properties: { selector: { type: 'string' } }, required: ['selector'] },
};

const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'policy preamble' },
    { role: 'user', content: 'fix the bug in calc.ops.add' },
  ],
  tools: [READ_ENTITY],
  temperature: 0,
  maxTokens: 256,
};

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw new Error(`expected a ModelError, got ${String(error)}`);
  }
  throw new Error('expected the call to fail');
}

describe('chat completions over HTTP', () => {
  it('parses a normal reply: text, usage, model, raw body, one attempt', async () => {
    server.enqueue(behave.text('{"tool": "read_entity", "args": {"selector": "calc.ops.add"}}'));
    const reply = await chat().complete(REQUEST);
    expect(reply.text).toBe('{"tool": "read_entity", "args": {"selector": "calc.ops.add"}}');
    expect(reply.toolCalls).toEqual([]);
    expect(reply.usage).toEqual({ promptTokens: 11, completionTokens: 7 });
    expect(reply.model).toBe('deepseek-chat');
    // raw is the body exactly as the server sent it
    expect(JSON.parse(reply.raw)).toMatchObject({
      object: 'chat.completion',
      choices: [{ finish_reason: 'stop' }],
    });
    expect(JSON.parse(reply.raw).choices[0].message.content).toBe(reply.text);
    expect(reply.attempts).toHaveLength(1);
    expect(reply.attempts[0]).toMatchObject({ n: 1, status: 200, error: null, retryInMs: null });
  });

  it('protocol json sends model, messages, temperature 0, max_tokens, the bearer key; no tools', async () => {
    server.enqueue(behave.text('{}'));
    const model = chat();
    expect(model.id).toBe('openai:deepseek-chat');
    expect(model.protocol).toBe('json');
    await model.complete(REQUEST);
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.body).toEqual({
      model: 'deepseek-chat',
      messages: REQUEST.messages,
      temperature: 0,
      max_tokens: 256,
    });
  });

  it('protocol tools offers the tools as functions with tool_choice auto and returns the call', async () => {
    server.enqueue(behave.toolCalls([{ name: 'read_entity', arguments: '{"selector": "calc.ops.add"}' }]));
    const model = chat({ protocol: 'tools' });
    expect(model.id).toBe('openai-tools:deepseek-chat');
    const reply = await model.complete(REQUEST);
    expect(server.requests[0]?.body).toMatchObject({
      temperature: 0,
      max_tokens: 256,
      tool_choice: 'auto',
      tools: [{ type: 'function', function: READ_ENTITY }],
    });
    expect(reply.text).toBeNull();
    expect(reply.toolCalls).toEqual([{ name: 'read_entity', arguments: '{"selector": "calc.ops.add"}' }]);
  });

  it('returns both calls of a multi-call reply: rejecting it is the policy layer’s job', async () => {
    server.enqueue(
      behave.toolCalls([
        { name: 'read_entity', arguments: '{"selector": "a.b"}' },
        { name: 'run_test', arguments: '{"target": "tests/test_a.py"}' },
      ]),
    );
    const reply = await chat({ protocol: 'tools' }).complete(REQUEST);
    expect(reply.toolCalls.map((c) => c.name)).toEqual(['read_entity', 'run_test']);
    expect(reply.toolCalls[1]?.arguments).toBe('{"target": "tests/test_a.py"}');
  });

  it('keeps malformed tool-call arguments verbatim', async () => {
    server.enqueue(behave.toolCalls([{ name: 'read_entity', arguments: '{"selector": ' }]));
    const reply = await chat({ protocol: 'tools' }).complete(REQUEST);
    expect(reply.toolCalls).toEqual([{ name: 'read_entity', arguments: '{"selector": ' }]);
  });

  it('retries a 429, waiting what Retry-After says, and records both attempts', async () => {
    server.enqueue(behave.rateLimited({ 'retry-after': '2' }), behave.text('ok'));
    const waits: number[] = [];
    const model = chat({ effects: { sleep: async (ms) => void waits.push(ms) } });
    const reply = await model.complete(REQUEST);
    expect(reply.text).toBe('ok');
    expect(waits).toEqual([2000]);
    expect(reply.attempts).toHaveLength(2);
    expect(reply.attempts[0]).toMatchObject({ n: 1, status: 429, retryInMs: 2000 });
    expect(reply.attempts[0]?.error).toContain('HTTP 429');
    expect(reply.attempts[1]).toMatchObject({ n: 2, status: 200, error: null, retryInMs: null });
    expect(server.requests).toHaveLength(2);
  });

  it('really waits for retry-after-ms before the next attempt', async () => {
    server.enqueue(behave.rateLimited({ 'retry-after-ms': '150' }), behave.text('ok'));
    const started = performance.now();
    const reply = await chat().complete(REQUEST);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    expect(reply.attempts.map((a) => a.status)).toEqual([429, 200]);
    expect(reply.attempts[0]?.retryInMs).toBe(150);
  });

  it('gives up as exhausted after 500 on every attempt (default 4), with each attempt recorded', async () => {
    server.enqueue(behave.serverError(), behave.serverError(), behave.serverError(503), behave.serverError());
    const error = await failure(chat().complete(REQUEST));
    expect(error.kind).toBe('exhausted');
    expect(error.attempts.map((a) => a.status)).toEqual([500, 500, 503, 500]);
    expect(error.attempts.map((a) => a.n)).toEqual([1, 2, 3, 4]);
    expect(error.attempts.slice(0, 3).every((a) => a.retryInMs !== null && a.retryInMs <= 5)).toBe(true);
    expect(error.attempts[3]?.retryInMs).toBeNull();
    expect(error.message).toContain('4 attempts');
    expect(error.fix).toContain('OPENAI_BASE_URL');
  });

  it('honours a configured attempt count', async () => {
    server.enqueue(behave.serverError(), behave.serverError());
    const error = await failure(chat({ retry: { ...FAST, maxAttempts: 2 } }).complete(REQUEST));
    expect(error.kind).toBe('exhausted');
    expect(error.attempts).toHaveLength(2);
  });

  it('refuses to wait longer than allowed for a Retry-After', async () => {
    server.enqueue(behave.rateLimited({ 'retry-after': '3600' }));
    const error = await failure(chat().complete(REQUEST));
    expect(error.kind).toBe('exhausted');
    expect(error.attempts).toHaveLength(1);
    expect(error.message).toContain('3600000 ms');
  });

  it('a hanging server ends in the timeout kind after every attempt timed out', async () => {
    server.enqueue(behave.hang(), { kind: 'hang', partial: true });
    const started = performance.now();
    const error = await failure(
      chat({ retry: { ...FAST, maxAttempts: 2, timeoutMs: 150 } }).complete(REQUEST),
    );
    expect(error.kind).toBe('timeout');
    expect(error.attempts.map((a) => [a.status, a.error])).toEqual([
      [null, 'timed out after 150 ms'],
      [null, 'timed out after 150 ms'],
    ]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('a timeout is retried and the next attempt can succeed', async () => {
    server.enqueue(behave.hang(), behave.text('late but fine'));
    const reply = await chat({ retry: { ...FAST, timeoutMs: 150 } }).complete(REQUEST);
    expect(reply.text).toBe('late but fine');
    expect(reply.attempts.map((a) => a.status)).toEqual([null, 200]);
  });

  it('a dropped connection is a retried network error', async () => {
    server.enqueue(behave.drop(), behave.text('ok'));
    const reply = await chat().complete(REQUEST);
    expect(reply.text).toBe('ok');
    expect(reply.attempts[0]?.status).toBeNull();
    expect(reply.attempts[0]?.error).toMatch(/^network error/);
  });

  it('a server that is not there exhausts the attempts with network errors', async () => {
    const gone = await FakeOpenAIServer.start();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const error = await failure(chat({ baseUrl, retry: { ...FAST, maxAttempts: 2 } }).complete(REQUEST));
    expect(error.kind).toBe('exhausted');
    expect(error.attempts.map((a) => a.error?.startsWith('network error ECONNREFUSED'))).toEqual([
      true,
      true,
    ]);
  });

  it('a body that is not JSON is a protocol error, not retried', async () => {
    server.enqueue(behave.malformed());
    const error = await failure(chat().complete(REQUEST));
    expect(error.kind).toBe('protocol');
    expect(error.attempts).toHaveLength(1);
    expect(error.bodyExcerpt).toBe('{"choices": [ this is not json');
  });

  it('JSON that is not a chat completion is a protocol error', async () => {
    server.enqueue(
      { kind: 'json', body: { hello: 'world' } },
      { kind: 'json', body: { choices: [{ index: 0 }] } },
    );
    expect((await failure(chat().complete(REQUEST))).message).toContain('no choices');
    expect((await failure(chat().complete(REQUEST))).message).toContain('no message');
  });

  it('reads finish_reason (length: the reply was cut) and sends no temperature when it is null', async () => {
    server.enqueue({ kind: 'reply', content: '{"tool": "re', finishReason: 'length' }, behave.text('{}'));
    const cut = await chat().complete({ ...REQUEST, temperature: null, maxTokens: 16 });
    expect(cut.finishReason).toBe('length');
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect('temperature' in body).toBe(false);
    expect(body.max_tokens).toBe(16);
    expect((await chat().complete(REQUEST)).finishReason).toBe('stop');
  });

  it('a 401 is a final auth error naming the key and the URL, with no retry', async () => {
    server.enqueue({ kind: 'status', status: 401, body: '{"error":{"message":"bad key"}}' });
    const error = await failure(chat().complete(REQUEST));
    expect(error.kind).toBe('auth');
    expect(error.message).toContain(`the API key was refused by ${server.baseUrl}`);
    expect(error.status).toBe(401);
    expect(error.bodyExcerpt).toContain('bad key');
    expect(error.fix).toContain('OPENAI_API_KEY');
    expect(error.attempts).toHaveLength(1);
  });

  it('the caller’s abort ends the call as aborted, without retrying', async () => {
    server.enqueue(behave.hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(chat().complete(REQUEST, controller.signal));
    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('an unknown price gives cost null; a known one gives the exact cost', async () => {
    server.enqueue(behave.text('a'), behave.text('b', { prompt_tokens: 1000, completion_tokens: 200 }));
    const unknown = await chat({
      prices: { 'gpt-4o': { promptPerMillion: 2.5, completionPerMillion: 10 } },
    }).complete(REQUEST);
    expect(unknown.costUsd).toBeNull();
    const known = await chat({
      prices: { 'deepseek-chat': { promptPerMillion: 0.27, completionPerMillion: 1.1 } },
    }).complete(REQUEST);
    expect(known.costUsd).toBe(0.00049);
  });

  it('a reply without usage gets an estimate (4 chars a token), so caps still count it', async () => {
    server.enqueue(behave.text('12345678', null));
    const reply = await chat().complete({ ...REQUEST, tools: undefined });
    const promptChars = REQUEST.messages.map((m) => m.content).join('\n').length;
    expect(reply.usage).toEqual({ promptTokens: Math.ceil(promptChars / 4), completionTokens: 2 });
  });

  it('refuses a missing key, base URL or model name at construction', () => {
    const config = (o: Partial<OpenAIChatOptions>) => () => chat(o);
    expect(config({ apiKey: '' })).toThrow(/OPENAI_API_KEY/);
    expect(config({ baseUrl: '' })).toThrow(/OPENAI_BASE_URL/);
    expect(config({ baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(config({ model: '' })).toThrow(/PIPER_MODEL/);
  });
});

describe('pricing and Retry-After', () => {
  it('finds a price by exact name, then without a provider prefix', () => {
    const table = { 'deepseek-chat': { promptPerMillion: 1, completionPerMillion: 2 } };
    expect(priceOf(table, 'deepseek/deepseek-chat')).toEqual(table['deepseek-chat']);
    expect(priceOf(table, 'toString')).toBeNull();
    expect(costUsd(table, ['nope', 'deepseek-chat'], { promptTokens: 3, completionTokens: 1 })).toBe(
      0.000005,
    );
  });

  it('reads retry-after-ms, seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(parseRetryAfter({}, now)).toBeNull();
  });
});

describe('resolveModel for HTTP models', () => {
  const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k' };

  it('builds openai: and openai-tools: models from the environment', () => {
    expect(resolveModel('openai:deepseek-chat', { env })).toMatchObject({
      id: 'openai:deepseek-chat',
      protocol: 'json',
    });
    expect(resolveModel(undefined, { env: { ...env, PIPER_MODEL: 'openai-tools:qwen' } })).toMatchObject({
      id: 'openai-tools:qwen',
      protocol: 'tools',
    });
  });

  it('with neither a key nor a base URL, asks for OPENAI_API_KEY or OPENAI_BASE_URL', () => {
    const error = (() => {
      try {
        resolveModel('gpt-4.1', { env: {} });
      } catch (e) {
        return e;
      }
    })();
    expect(isModelError(error, 'config')).toBe(true);
    expect((error as ModelError).message).toBe(
      'no API key and no base URL for gpt-4.1; set OPENAI_API_KEY for OpenAI (https://api.openai.com/v1), or OPENAI_BASE_URL and OPENAI_API_KEY for another OpenAI-compatible server (any key value for a local server that needs none)',
    );
  });

  it('names what is missing or wrong', () => {
    expect(() => resolveModel('openai:gpt-4o', { env: { OPENAI_BASE_URL: env.OPENAI_BASE_URL } })).toThrow(
      /OPENAI_API_KEY/,
    );
    expect(() => resolveModel('openai:', { env })).toThrow(/names no model/);
    expect(() => resolveModel(undefined, { env })).toThrow(/PIPER_MODEL/);
    expect(() => resolveModel('antropic:claude', { env })).toThrow(
      /unknown model scheme "antropic".*openai:NAME, openai-tools:NAME, anthropic:NAME, script:FILE, or a bare NAME/,
    );
    // The OpenAI key is never taken for Anthropic's.
    expect(() => resolveModel('anthropic:claude', { env })).toThrow(/set ANTHROPIC_API_KEY/);
  });

  it('config values win over the environment', async () => {
    server.enqueue(behave.text('via config'));
    const model = resolveModel('openai:m', {
      env,
      config: { baseUrl: server.baseUrl, apiKey: 'from-config' },
    });
    expect((await model.complete(REQUEST)).text).toBe('via config');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer from-config');
  });
});

describe('embeddings over HTTP', () => {
  const embeddings = (retry = FAST) =>
    new OpenAIEmbeddings({ baseUrl: server.baseUrl, apiKey: KEY, model: 'embed-small', retry });

  it('posts the texts and returns one vector per text, in input order', async () => {
    server.enqueue(
      behave.embeddings(
        [
          [1, 0],
          [0, 1],
          [0.5, 0.5],
        ],
        true,
      ),
    );
    const client = embeddings();
    const vectors = await client.embed(['a', 'b', 'c']);
    expect(vectors).toEqual([
      [1, 0],
      [0, 1],
      [0.5, 0.5],
    ]);
    expect(server.requests[0]).toMatchObject({
      path: '/v1/embeddings',
      body: { model: 'embed-small', input: ['a', 'b', 'c'] },
    });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(client.lastAttempts.map((a) => a.status)).toEqual([200]);
  });

  it('retries a 500 like the chat client', async () => {
    server.enqueue(behave.serverError(), behave.embeddings([[1, 2, 3]]));
    const client = embeddings();
    expect(await client.embed(['x'])).toEqual([[1, 2, 3]]);
    expect(client.lastAttempts.map((a) => a.status)).toEqual([500, 200]);
  });

  it('a reply with the wrong number of vectors is a protocol error', async () => {
    server.enqueue(behave.embeddings([[1, 2]]));
    const error = await failure(embeddings().embed(['x', 'y']));
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('1 vectors for 2 inputs');
  });

  it('embeds nothing without a request', async () => {
    expect(await embeddings().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
