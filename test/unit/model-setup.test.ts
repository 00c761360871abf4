// Model set-up as engineers know it from other tools: a bare model name is an OpenAI model, the
// endpoint defaults to OpenAI's (Anthropic's) public one when only the key is set, and sampling is
// configuration with the policy's greedy default. No test here contacts a public endpoint: the
// resolved URL is asserted, never requested.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planResume } from '../../cli/ledger/resume-plan.js';
import { samplingOf } from '../../core/fix/run-fix.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { MODELS } from '../helpers/sample-repo.js';
import { SELECTION_SAMPLING } from '../../policy/prompt.js';
import { cutReason, parseReply } from '../../policy/proposal.js';
import { modelEndpoint, resolveModel } from '../../runtime/model/resolve.js';
import { SamplingConfigSchema, samplingFor } from '../../runtime/model/sampling.js';
import { ConfigSchema } from '../../core/config.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';
import { recordOwnRun } from '../../runtime/host/own-runs.js';

describe('bare model names and default endpoints', () => {
  it('a bare name with OPENAI_API_KEY is openai:NAME at https://api.openai.com/v1', () => {
    const env = { OPENAI_API_KEY: 'sk-x' };
    expect(resolveModel('gpt-4.1', { env })).toMatchObject({ id: 'openai:gpt-4.1', protocol: 'json' });
    expect(resolveModel(undefined, { env: { ...env, PIPER_MODEL: 'gpt-4.1' } }).id).toBe('openai:gpt-4.1');
    expect(modelEndpoint('gpt-4.1', { env })).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      name: 'gpt-4.1',
      defaulted: true,
    });
    expect(modelEndpoint('openai-tools:gpt-4.1', { env }).baseUrl).toBe('https://api.openai.com/v1');
  });

  it('OPENAI_BASE_URL (or the config baseUrl) still names any compatible server', () => {
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' };
    expect(modelEndpoint('qwen', { env })).toMatchObject({ baseUrl: env.OPENAI_BASE_URL, defaulted: false });
    const config = { baseUrl: 'http://127.0.0.1:9000/v1' };
    expect(modelEndpoint('qwen', { env, config }).baseUrl).toBe(config.baseUrl);
    // A base URL with no key is still a missing key, not a default.
    expect(() => modelEndpoint('qwen', { env: { OPENAI_BASE_URL: env.OPENAI_BASE_URL } })).toThrow(
      /no API key for qwen; set OPENAI_API_KEY/,
    );
  });

  it('anthropic:NAME with ANTHROPIC_API_KEY defaults to https://api.anthropic.com', () => {
    expect(modelEndpoint('anthropic:claude-x', { env: { ANTHROPIC_API_KEY: 'a' } })).toMatchObject({
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'a',
      name: 'claude-x',
    });
    expect(() => resolveModel('anthropic:claude-x', { env: {} })).toThrow(
      'no API key and no base URL for anthropic:claude-x; set ANTHROPIC_API_KEY',
    );
  });

  it('a name with a colon (Ollama) is written with its scheme; an unknown scheme says so', () => {
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' };
    expect(resolveModel('openai:llama3:8b', { env }).id).toBe('openai:llama3:8b');
    expect(() => resolveModel('llama3:8b', { env })).toThrow(/is written openai:llama3:8b/);
  });
});

describe('sampling as configuration', () => {
  const parse = (raw: unknown) => SamplingConfigSchema.parse(raw);

  it('defaults to the policy’s greedy sampling (temperature 0, 256 completion tokens)', () => {
    expect(samplingFor(undefined, 'gpt-4.1', SELECTION_SAMPLING)).toEqual({ temperature: 0, maxTokens: 256 });
  });

  it('global keys, then per-model entries keyed as prices are; "none" and null send no temperature', () => {
    const config = parse({
      temperature: 0.2,
      maxCompletionTokens: 512,
      models: {
        'o4-mini': { temperature: 'none', maxCompletionTokens: 2048 },
        'gpt-4.1': { temperature: null },
      },
    });
    expect(samplingFor(config, 'deepseek-chat', SELECTION_SAMPLING)).toEqual({
      temperature: 0.2,
      maxTokens: 512,
    });
    expect(samplingFor(config, 'o4-mini', SELECTION_SAMPLING)).toEqual({
      temperature: null,
      maxTokens: 2048,
    });
    expect(samplingFor(config, 'openai/o4-mini', SELECTION_SAMPLING).maxTokens).toBe(2048);
    expect(samplingFor(config, 'gpt-4.1', SELECTION_SAMPLING)).toEqual({ temperature: null, maxTokens: 512 });
  });

  it('is a config key, checked like every other', () => {
    expect(ConfigSchema.safeParse({ sampling: { maxCompletionTokens: 0 } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ sampling: { temperature: 'hot' } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ sampling: { topP: 1 } }).success).toBe(false);
    expect(ConfigSchema.parse({ sampling: { temperature: 'none' } }).sampling).toEqual({ temperature: null });
  });
});

describe('a reply cut at the completion-token limit', () => {
  it('is a no-op naming the limit in force and the key that raises it, on both protocols', () => {
    const cut = {
      text: '{"tool": "edit_entity", "args": {"replace": "def f',
      toolCalls: [],
      finishReason: 'length',
    };
    expect(parseReply(cut, 'json', 256)).toEqual({
      ok: false,
      reason: 'reply cut at 256 completion tokens; raise sampling.maxCompletionTokens',
      protocolViolation: false,
    });
    const call = { text: null, toolCalls: [{ name: 'stop', arguments: '{}' }], finishReason: 'length' };
    expect(parseReply(call, 'tools', 1024)).toMatchObject({ ok: false, reason: cutReason(1024) });
    // Not cut: read as before.
    expect(parseReply({ ...call, finishReason: 'tool_calls' }, 'tools', 1024).ok).toBe(true);
  });
});

describe('resume keeps the sampling the run was recorded with', () => {
  it('reads config.sampling from the run into the resumed configuration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-resume-sampling-'));
    // A run this machine started (resume takes a foreign run's settings only as replay would).
    process.env.PIPER_STATE_DIR = join(dir, 'state');
    const ledger = Ledger.open(join(dir, 'ledger.db'));
    const model = `script:${join(MODELS, 'sample-fix.jsonl')}`;
    const config = { maxTurns: 30, sampling: { temperature: null, maxCompletionTokens: 700 } };
    const runId = createRun(ledger, {
      kind: 'fix',
      repo: dir,
      owner: 'test',
      model,
      policy: 'policy',
      config,
    });
    recordOwnRun({ id: runId, model, config });
    endRun(ledger, runId, 'stop', 'stopped');
    const plan = planResume(ledger, runId, {});
    ledger.close();
    delete process.env.PIPER_STATE_DIR;
    expect(plan.input.config.sampling).toEqual({ temperature: null, maxCompletionTokens: 700 });
    expect(samplingOf(plan.input.config, plan.input.model!)).toEqual({ temperature: null, maxTokens: 700 });
  });
});
