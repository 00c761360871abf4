// `piper-agent config`: which layer each value comes from (default < user < repo < env < flag), where
// the user file lives (XDG_CONFIG_HOME, else HOME/.config), whether the files exist, and that no
// secret reaches the output.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configCommand, configReport } from '../../cli/commands/config.js';
import { UsageError } from '../../core/exit-codes.js';

const KEY = 'sk-live-0123456789abcdef';
const ENV_KEY = 'sk-env-fedcba9876543210';
const PASSWORD = 'hunter2-very-secret';

let home: string;
let xdg: string;
let repo: string;

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

const userFile = () => join(xdg, 'piper-agent', 'config.json');
const repoFile = () => join(repo, '.piper', 'config.json');

/** configCommand's stdout and exit code. */
async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    return { code: await configCommand(argv), out };
  } finally {
    spy.mockRestore();
  }
}

beforeEach(() => {
  const base = mkdtempSync(join(tmpdir(), 'piper-config-'));
  home = join(base, 'home');
  xdg = join(base, 'xdg');
  repo = join(base, 'repo');
  mkdirSync(home, { recursive: true });
  mkdirSync(repo, { recursive: true });
  vi.stubEnv('HOME', home);
  vi.stubEnv('XDG_CONFIG_HOME', xdg);
  // Nothing from the machine running the tests may leak in.
  for (const name of [
    'PIPER_MODEL',
    'OPENAI_BASE_URL',
    'OPENAI_API_KEY',
    'TOOL_POLICY',
    'PIPER_POLICY',
    'PIPER_MAX_TURNS',
    'PIPER_MAX_COST_USD',
    'PIPER_MAX_TOKENS',
    'PIPER_MAX_WALL_S',
    'PIPER_OUTPUT',
    'PIPER_IMAGE',
    'PIPER_TEST',
    'PIPER_LEDGER',
    'RETRIEVE',
    'PIPER_EMBED_MODEL',
    'SYMBOL_CAMEL',
  ]) {
    vi.stubEnv(name, undefined);
  }
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('configReport: precedence user < repo < env < flag', () => {
  it('takes each value from the highest layer that sets it', () => {
    writeJson(userFile(), { model: 'openai:user-model', maxTurns: 5, policy: 'current', maxTokens: 1000 });
    // The repository may lower a cap (raising one needs trust: config-trust.test.ts).
    writeJson(repoFile(), { model: 'openai:repo-model', maxTurns: 4, test: 'tests/test_a.py' });
    const env = { PIPER_MODEL: 'openai:env-model', PIPER_MAX_TURNS: '7', XDG_CONFIG_HOME: xdg };

    const all = configReport({ repo, env, flags: { model: 'openai:flag-model' } });
    expect(all.config).toMatchObject({
      model: 'openai:flag-model',
      maxTurns: 7,
      policy: 'current',
      maxTokens: 1000,
      test: 'tests/test_a.py',
      maxWallS: 1800,
    });
    expect(all.sources).toMatchObject({
      model: 'flag',
      maxTurns: 'env',
      policy: 'user',
      maxTokens: 'user',
      test: 'repo',
      maxWallS: 'default',
      output: 'default',
    });

    const noFlag = configReport({ repo, env });
    expect([noFlag.config.model, noFlag.sources.model]).toEqual(['openai:env-model', 'env']);
    const noEnv = configReport({ repo, env: { XDG_CONFIG_HOME: xdg } });
    expect([noEnv.config.model, noEnv.sources.model, noEnv.config.maxTurns, noEnv.sources.maxTurns]).toEqual([
      'openai:repo-model',
      'repo',
      4,
      'repo',
    ]);
    writeJson(repoFile(), {});
    const userOnly = configReport({ repo, env: { XDG_CONFIG_HOME: xdg } });
    expect([userOnly.config.model, userOnly.sources.model, userOnly.config.maxTurns]).toEqual([
      'openai:user-model',
      'user',
      5,
    ]);
  });

  it('finds the user file under XDG_CONFIG_HOME, else under HOME/.config, and says whether each file exists', () => {
    const withXdg = configReport({ repo, env: { XDG_CONFIG_HOME: xdg } });
    expect(withXdg.files).toEqual({
      user: { path: userFile(), exists: false },
      repo: { path: repoFile(), exists: false },
    });

    const homeFile = join(home, '.config', 'piper-agent', 'config.json');
    writeJson(homeFile, { model: 'script:home.jsonl' });
    writeJson(repoFile(), { policy: 'current' });
    const withHome = configReport({ repo, env: {} });
    expect(withHome.files).toEqual({
      user: { path: homeFile, exists: true },
      repo: { path: repoFile(), exists: true },
    });
    expect(withHome.sources).toMatchObject({ model: 'user', policy: 'repo' });
  });

  it('refuses an invalid layer, naming it', () => {
    writeJson(repoFile(), { maxTurns: 'many' });
    expect(() => configReport({ repo, env: {} })).toThrow(UsageError);
    expect(() => configReport({ repo, env: {} })).toThrow(`bad configuration in ${repoFile()}: maxTurns`);
    writeJson(repoFile(), {});
    expect(() => configReport({ repo, env: { PIPER_POLICY: 'yolo' } })).toThrow(
      'bad configuration in the environment: policy',
    );
  });
});

describe('retrieval settings: RETRIEVE, PIPER_EMBED_MODEL and SYMBOL_CAMEL are config values', () => {
  it('takes them from the environment with their source, below the files when unset', () => {
    writeJson(userFile(), { retrieve: 'embed', embedModel: 'user-embedder' });
    const fromFile = configReport({ repo, env: { XDG_CONFIG_HOME: xdg } });
    expect(fromFile.config).toMatchObject({ retrieve: 'embed', embedModel: 'user-embedder' });
    expect(fromFile.sources).toMatchObject({ retrieve: 'user', embedModel: 'user' });
    expect(fromFile.config.symbolCamel).toBeUndefined();

    const env = { XDG_CONFIG_HOME: xdg, RETRIEVE: 'lexical', PIPER_EMBED_MODEL: 'e5', SYMBOL_CAMEL: '1' };
    const fromEnv = configReport({ repo, env });
    expect(fromEnv.config).toMatchObject({ retrieve: 'lexical', embedModel: 'e5', symbolCamel: true });
    expect(fromEnv.sources).toMatchObject({ retrieve: 'env', embedModel: 'env', symbolCamel: 'env' });
    // Only exactly 1 turns the CamelCase signal on, as before it was a config value.
    expect(configReport({ repo, env: { ...env, SYMBOL_CAMEL: 'true' } }).config.symbolCamel).toBe(false);
  });

  it('refuses a retrieval mode it does not know, naming the key', () => {
    expect(() => configReport({ repo, env: { RETRIEVE: 'dense' } })).toThrow(
      'bad configuration in the environment: retrieve',
    );
  });

  it('leaves an untrusted repository file its retrieval mode but not its embeddings model', () => {
    writeJson(repoFile(), { retrieve: 'embed', embedModel: 'repo-embedder' });
    const report = configReport({ repo, env: { XDG_CONFIG_HOME: xdg } });
    expect(report.config.retrieve).toBe('embed');
    expect(report.config.embedModel).toBeUndefined();
    expect(report.ignored).toEqual([
      expect.objectContaining({ key: 'embedModel', reason: expect.stringContaining('embeddings model') }),
    ]);
  });
});

describe('piper-agent config', () => {
  it('prints every key with its value and source, and both file paths', async () => {
    writeJson(userFile(), { maxTurns: 12 });
    vi.stubEnv('PIPER_MODEL', 'openai:env-model');
    const { code, out } = await run(['--repo', repo, '--policy', 'current']);
    expect(code).toBe(0);
    expect(out).toMatch(/^ {2}model\s+openai:env-model\s+env$/m);
    expect(out).toMatch(/^ {2}maxTurns\s+12\s+user$/m);
    expect(out).toMatch(/^ {2}policy\s+current\s+flag$/m);
    expect(out).toMatch(/^ {2}maxWallS\s+1800\s+default$/m);
    expect(out).toMatch(/^ {2}image\s+-$/m);
    expect(out).toContain(`user  ${userFile()}  (found)`);
    expect(out).toContain(`repo  ${repoFile()}  (not found)`);
  });

  it('redacts the API key from any layer and a password in the base URL, in text and JSON', async () => {
    writeJson(userFile(), { apiKey: KEY, baseUrl: `https://me:${PASSWORD}@llm.example.com/v1` });
    for (const argv of [
      ['--repo', repo],
      ['--repo', repo, '--json'],
    ]) {
      const { out } = await run(argv);
      expect(out).not.toContain(KEY);
      expect(out).not.toContain(PASSWORD);
      expect(out).toContain('(redacted)');
    }
    const { out } = await run(['--repo', repo, '--json']);
    const report = JSON.parse(out);
    expect(report.sources).toMatchObject({ apiKey: 'user', baseUrl: 'user' });
    expect(report.config.baseUrl).toMatch(/^https:\/\/me:.*@llm\.example\.com\/v1$/);

    vi.stubEnv('OPENAI_API_KEY', ENV_KEY);
    const fromEnv = await run(['--repo', repo, '--json']);
    expect(fromEnv.out).not.toContain(ENV_KEY);
    expect(JSON.parse(fromEnv.out).sources.apiKey).toBe('env');
  });

  it('reports the flag layer as JSON, and rejects a bad flag as a usage error', async () => {
    writeJson(repoFile(), { model: 'script:repo.jsonl' });
    const { out } = await run(['--repo', repo, '--json', '--model', 'script:flag.jsonl', '--max-turns', '3']);
    const report = JSON.parse(out);
    expect(report.config).toMatchObject({ model: 'script:flag.jsonl', maxTurns: 3 });
    expect(report.sources).toMatchObject({ model: 'flag', maxTurns: 'flag' });
    expect(report.files.repo).toEqual({ path: repoFile(), exists: true });
    await expect(run(['--repo', repo, '--policy', 'yolo'])).rejects.toThrow(UsageError);
    await expect(run(['--repo', repo, 'extra'])).rejects.toMatchObject({
      code: 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL',
    });
  });
});
