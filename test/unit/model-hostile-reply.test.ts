// A hostile model server, over real HTTP: pre-parsed tool-call arguments nested a
// million deep become a no-op turn (not a stack overflow that ends the run), and a body past the
// client's read cap is refused without being read into memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReply } from '../../policy/proposal.js';
import { MAX_BODY_BYTES } from '../../runtime/model/http-json.js';
import { OpenAIChatModel } from '../../runtime/model/openai-chat.js';
import { isModelError } from '../../runtime/model/types.js';
import { FakeOpenAIServer } from '../helpers/fake-openai-server.js';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await FakeOpenAIServer.start();
});
afterAll(async () => {
  await server.close();
});

const model = () =>
  new OpenAIChatModel({
    baseUrl: server.baseUrl,
    apiKey: 'k',
    model: 'm',
    protocol: 'tools',
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
const REQUEST = { messages: [{ role: 'user' as const, content: 'go' }], temperature: 0, maxTokens: 256 };

describe('a hostile model server', () => {
  it('arguments sent as an object nested 1,000,000 deep: the turn is a no-op, too deep', async () => {
    const depth = 1_000_000;
    const args = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    server.enqueue({
      kind: 'malformed',
      body: `{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"stop","arguments":${args}}}]}}]}`,
    });
    const reply = await model().complete(REQUEST);
    const parsed = parseReply(reply, 'tools');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toMatch(
      /^JSON in the arguments of stop nested deeper than 64 levels/,
    );
  });
  it(`a body over ${MAX_BODY_BYTES >> 20} MiB is refused, not read`, async () => {
    server.enqueue({ kind: 'malformed', body: `"${'x'.repeat(MAX_BODY_BYTES + 10)}"` });
    const error = await model()
      .complete(REQUEST)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isModelError(error, 'protocol')).toBe(true);
    expect((error as Error).message).toContain('is over 16 MiB; it was not read');
  });
});
