// An endpoint model on a swarm (eval/cluster/model-secret.ts): which specs are endpoint models, and
// what a job's spec says about the key — the secret by reference and the variable to read it into,
// each provider's own, never the key itself.
import { describe, expect, it } from 'vitest';
import { isEndpointModel, modelSecretMount } from '../../eval/cluster/model-secret.js';

describe('an endpoint model on a swarm', () => {
  it('takes openai:, openai-tools:, anthropic: and bare names as endpoint models', () => {
    expect(['openai:m', 'openai-tools:m', 'anthropic:m', 'gpt-4.1'].map(isEndpointModel)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['sim:1', 'script:x.jsonl'].map(isEndpointModel)).toEqual([false, false]);
  });

  it("names the provider's variables and the secret, and holds no key", () => {
    const mount = modelSecretMount({
      secretId: 'sec123',
      secretName: 'piper-ab-run-key-abc',
      keyVar: 'ANTHROPIC_API_KEY',
      urlVar: 'ANTHROPIC_BASE_URL',
      baseUrl: 'http://127.0.0.1:9/',
    });
    expect(mount.reference).toEqual({
      SecretID: 'sec123',
      SecretName: 'piper-ab-run-key-abc',
      File: { Name: 'piper-model-key', UID: '0', GID: '0', Mode: 0o400 },
    });
    expect(mount.env).toEqual([
      'ANTHROPIC_BASE_URL=http://127.0.0.1:9/',
      'PIPER_JOB_KEY_VAR=ANTHROPIC_API_KEY',
      'PIPER_JOB_KEY_FILE=/run/secrets/piper-model-key',
    ]);
  });
});
