// doctor's model check over real HTTP against fake OpenAI-compatible and Anthropic servers on
// 127.0.0.1: a listed model is ok; a refused key, an unreachable URL and an unknown model are each
// named with the fix; a server without a models list is asked a 1-token completion instead.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkModel } from '../../cli/doctor/model-check.js';
import { anthropic, FakeAnthropicServer } from '../helpers/fake-anthropic-server.js';
import { behave, FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { MODELS } from '../helpers/sample-repo.js';

let openai: FakeOpenAIServer;
let claude: FakeAnthropicServer;
const repo = mkdtempSync(join(tmpdir(), 'piper-doctor-model-'));

beforeAll(async () => {
  [openai, claude] = await Promise.all([FakeOpenAIServer.start(), FakeAnthropicServer.start()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), claude.close()]);
});
afterEach(() => {
  expect(openai.pending + claude.pending).toBe(0);
  openai.requests.length = 0;
  claude.requests.length = 0;
});

/** Only what a test sets: no user config, no model variables of the machine running the tests. */
const check = (env: Record<string, string>) =>
  checkModel({ repo, env: { XDG_CONFIG_HOME: repo, HOME: repo, ...env }, timeoutMs: 5_000 });

const list = (...ids: string[]) => ({
  kind: 'json' as const,
  body: { object: 'list', data: ids.map((id) => ({ id })) },
});

describe('doctor: the OpenAI-compatible model', () => {
  const env = () => ({ PIPER_MODEL: 'gpt-test', OPENAI_API_KEY: 'sk-good', OPENAI_BASE_URL: openai.baseUrl });

  it('is ok when the key is accepted and the model is listed (one GET /models)', async () => {
    openai.enqueue(list('other', 'gpt-test'));
    const result = await check(env());
    expect(result).toEqual({
      name: 'model',
      ok: true,
      detail: `gpt-test at ${openai.baseUrl}: key accepted, model listed`,
    });
    expect(openai.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['GET', '/v1/models', 'Bearer sk-good'],
    ]);
  });

  it('names a refused key with its fix', async () => {
    openai.enqueue({ kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key"}}' });
    expect(await check(env())).toEqual({
      name: 'model',
      ok: false,
      detail: `the API key was refused by ${openai.baseUrl} (HTTP 401)`,
      fix: 'check OPENAI_API_KEY: the server did not accept it',
    });
  });

  it('names an unknown model with what the server has', async () => {
    openai.enqueue(list('qwen', 'llama'));
    const result = await check(env());
    expect(result.ok).toBe(false);
    expect(result.detail).toBe(`unknown model gpt-test at ${openai.baseUrl}: the server lists qwen, llama`);
    expect(result.fix).toContain('pick a listed model');
  });

  it('names an unreachable URL (connection refused) with its fix', async () => {
    const gone = await FakeOpenAIServer.start();
    await gone.close();
    const result = await check({ ...env(), OPENAI_BASE_URL: gone.baseUrl });
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(new RegExp(`^cannot reach ${gone.baseUrl}: ECONNREFUSED`));
    expect(result.fix).toBe('check OPENAI_BASE_URL (the host name, the port, whether the server is up)');
  });

  it('without a models list, asks a 1-token completion: ok, or 404 as an unknown model', async () => {
    openai.enqueue({ kind: 'status', status: 404, body: 'no such route' }, behave.text('ok'));
    expect((await check(env())).ok).toBe(true);
    expect(openai.requests[1]?.body).toMatchObject({ model: 'gpt-test', max_tokens: 1 });
    openai.enqueue({ kind: 'status', status: 404 }, { kind: 'status', status: 404, body: 'model not found' });
    const unknown = await check(env());
    expect(unknown.detail).toBe(`unknown model gpt-test at ${openai.baseUrl}: the server answered 404`);
    expect(unknown.fix).toContain('(most servers want it to end in /v1)');
  });
});

describe('doctor: the Anthropic model', () => {
  const env = () => ({
    PIPER_MODEL: 'anthropic:claude-test',
    ANTHROPIC_API_KEY: 'sk-ant',
    ANTHROPIC_BASE_URL: claude.baseUrl,
  });

  it('reads GET /v1/models with x-api-key and the version header', async () => {
    claude.enqueue(anthropic.models('claude-test'));
    expect((await check(env())).ok).toBe(true);
    const [req] = claude.requests;
    expect([req?.method, req?.path, req?.headers['x-api-key']]).toEqual([
      'GET',
      '/v1/models?limit=1000',
      'sk-ant',
    ]);
    expect(req?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('names a refused key and an unknown model', async () => {
    claude.enqueue(anthropic.error(401, 'authentication_error'));
    expect(await check(env())).toMatchObject({
      ok: false,
      fix: 'check ANTHROPIC_API_KEY: the server did not accept it',
    });
    claude.enqueue(anthropic.models('claude-other'));
    expect((await check(env())).detail).toBe(
      `unknown model claude-test at ${claude.baseUrl}: the server lists claude-other`,
    );
  });
});

describe('doctor: set-up without a request', () => {
  it('no model, a missing key, and a script model', async () => {
    expect(await check({})).toMatchObject({ ok: false, detail: 'no model configured' });
    expect(await check({ PIPER_MODEL: 'gpt-4.1' })).toMatchObject({
      ok: false,
      detail: 'no API key and no base URL for gpt-4.1',
    });
    const script = await check({ PIPER_MODEL: `script:${join(MODELS, 'sample-fix.jsonl')}` });
    expect(script.ok).toBe(true);
  });
});
