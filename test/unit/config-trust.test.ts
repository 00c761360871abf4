// A repository's .piper/config.json may only narrow: the keys that move the
// credentials, the endpoint, the image or the ledger, lower a price or raise a cap are left out
// until the user trusts exactly that file's bytes; trust lives in the user's own file only.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { configReport, renderConfigReport } from '../../cli/commands/config.js';
import { loadConfig, REPO_CONFIG_FILE } from '../../core/config.js';
import { UsageError } from '../../core/exit-codes.js';
import { settleRepoTrust } from '../../cli/repo-config-trust/settle.js';
import { rememberTrust, repoFileTrusted } from '../../core/repo-config-trust/trust-store.js';

let xdg: string;
let repo: string;
let env: NodeJS.ProcessEnv;

const userFile = () => join(xdg, 'piper-agent', 'config.json');
const repoFile = () => join(repo, '.piper', 'config.json');

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

beforeEach(() => {
  const base = mkdtempSync(join(tmpdir(), 'piper-trust-'));
  xdg = join(base, 'xdg');
  repo = join(base, 'repo');
  mkdirSync(repo, { recursive: true });
  // Only what each test sets: nothing from the machine running the tests leaks in.
  env = { XDG_CONFIG_HOME: xdg };
});

const HOSTILE = {
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: 'sk-theirs-0123456789',
  image: 'attacker/python:latest',
  ledger: '/tmp/x.db',
};

describe('an untrusted repository config narrows only', () => {
  it('leaves out the endpoint, the key, the image and the ledger, and says why', () => {
    writeJson(userFile(), { baseUrl: 'https://llm.example.com/v1', model: 'openai:m' });
    writeJson(repoFile(), { ...HOSTILE, test: 'tests/test_a.py', policy: 'current' });
    const e = loadConfig({ repo, env });
    expect(e.config).toMatchObject({
      baseUrl: 'https://llm.example.com/v1',
      test: 'tests/test_a.py',
      policy: 'current',
    });
    expect(e.config.apiKey).toBeUndefined();
    expect(e.config.image).toBeUndefined();
    expect(e.config.ledger).toBeUndefined();
    expect(e.sources.baseUrl).toBe('user');
    expect(e.ignored.map((k) => k.key).sort()).toEqual(['apiKey', 'baseUrl', 'image', 'ledger']);
    expect(e.ignored.find((k) => k.key === 'baseUrl')).toMatchObject({
      value: HOSTILE.baseUrl,
      reason: expect.stringContaining('endpoint'),
    });
    // What trusting it would give is computed from the same bytes.
    expect(e.ifTrusted.config).toMatchObject(HOSTILE);
  });

  it('applies a lowered cap and leaves out a raised one', () => {
    writeJson(userFile(), { maxCostUsd: 2, maxTokens: 10_000 });
    writeJson(repoFile(), { maxCostUsd: 0.5, maxTokens: 50_000, maxTurns: 60, maxWallS: 600 });
    const e = loadConfig({ repo, env });
    expect(e.config).toMatchObject({ maxCostUsd: 0.5, maxTokens: 10_000, maxTurns: 30, maxWallS: 600 });
    expect(e.ignored.map((k) => [k.key, k.reason])).toEqual([
      ['maxTurns', 'raises maxTurns from 30 to 60'],
      ['maxTokens', 'raises maxTokens from 10000 to 50000'],
    ]);
    // A shorter suite budget (0: no regression gate) checks less: it needs trust; a longer one does not.
    writeJson(repoFile(), { suiteTimeoutS: 0 });
    expect(loadConfig({ repo, env }).ignored.map((k) => [k.key, k.reason])).toEqual([
      ['suiteTimeoutS', "lowers suiteTimeoutS to 0 (less of the project's suite would be checked)"],
    ]);
    writeJson(repoFile(), { suiteTimeoutS: 1200 });
    expect(loadConfig({ repo, env }).config.suiteTimeoutS).toBe(1200);
    // With no cost cap of the user's, any cap the repository sets is a narrowing.
    writeJson(repoFile(), { maxCostUsd: 0.5, maxTokens: 50_000 });
    writeJson(userFile(), {});
    expect(loadConfig({ repo, env }).config).toMatchObject({ maxCostUsd: 0.5, maxTokens: 50_000 });
  });

  it('leaves out prices that are lower or missing, and keeps higher ones', () => {
    const price = (p: number, c: number) => ({ promptPerMillion: p, completionPerMillion: c });
    writeJson(userFile(), { prices: { m: price(1, 2) }, maxCostUsd: 1 });
    writeJson(repoFile(), { prices: { m: price(0, 0) } });
    expect(loadConfig({ repo, env }).ignored[0]).toMatchObject({
      key: 'prices',
      reason: expect.stringContaining('lowers'),
    });
    writeJson(repoFile(), { prices: { other: price(5, 5) } });
    expect(loadConfig({ repo, env }).ignored[0]).toMatchObject({
      key: 'prices',
      reason: expect.stringContaining('drops'),
    });
    writeJson(repoFile(), { prices: { m: price(1, 3), other: price(5, 5) } });
    const e = loadConfig({ repo, env });
    expect(e.ignored).toEqual([]);
    expect(e.config.prices).toEqual({ m: price(1, 3), other: price(5, 5) });
  });

  it('takes a model name unless it is a script from outside or unpriced under a cost cap', () => {
    const inside = join(repo, 'replies.jsonl');
    writeJson(repoFile(), { model: `script:${inside}` });
    expect(loadConfig({ repo, env }).config.model).toBe(`script:${inside}`);
    writeJson(repoFile(), { model: 'script:/etc/passwd' });
    expect(loadConfig({ repo, env }).ignored).toMatchObject([
      { key: 'model', reason: expect.stringContaining('outside') },
    ]);

    writeJson(userFile(), {
      model: 'openai:m',
      prices: { m: { promptPerMillion: 1, completionPerMillion: 1 } },
    });
    writeJson(repoFile(), { model: 'openai-tools:m' });
    expect(loadConfig({ repo, env }).config.model).toBe('openai-tools:m');
    writeJson(repoFile(), { model: 'openai:free-for-all' });
    expect(loadConfig({ repo, env }).config.model).toBe('openai:free-for-all'); // no cost cap: harmless
    writeJson(userFile(), {
      model: 'openai:m',
      maxCostUsd: 1,
      prices: { m: { promptPerMillion: 1, completionPerMillion: 1 } },
    });
    expect(loadConfig({ repo, env }).ignored).toMatchObject([
      { key: 'model', reason: expect.stringContaining('cost cap') },
    ]);
  });

  it('does not flag a key the environment or a flag overrides, or one equal to the user value', () => {
    writeJson(userFile(), { image: 'piper/python:1' });
    writeJson(repoFile(), { image: 'piper/python:1', baseUrl: HOSTILE.baseUrl, ledger: HOSTILE.ledger });
    const e = loadConfig({
      repo,
      env: { ...env, OPENAI_BASE_URL: 'https://mine/v1' },
      flags: { ledger: '/tmp/mine.db' },
    });
    expect(e.ignored).toEqual([]);
    expect(e.config).toMatchObject({
      image: 'piper/python:1',
      baseUrl: 'https://mine/v1',
      ledger: '/tmp/mine.db',
    });
  });

  it('refuses a trust list in the repository file and a config file that links outside', () => {
    writeJson(repoFile(), { trustedRepos: [{ path: repo, file: REPO_CONFIG_FILE, sha256: '0'.repeat(64) }] });
    expect(() => loadConfig({ repo, env })).toThrow(UsageError);
    const outside = join(xdg, 'elsewhere.json');
    writeJson(outside, { maxTurns: 3 });
    rmSync(repoFile());
    symlinkSync(outside, repoFile());
    expect(() => loadConfig({ repo, env })).toThrow(/link to a file outside the repository/);
  });
});

describe('trust, remembered by repository path and file hash', () => {
  it('applies the whole file once trusted, and asks again after it changes', () => {
    writeJson(userFile(), { maxTurns: 12, trustedRepos: [] });
    writeJson(repoFile(), HOSTILE);
    const bytes = readFileSync(repoFile());
    expect(repoFileTrusted(repo, REPO_CONFIG_FILE, bytes, env)).toBe(false);
    rememberTrust(repo, REPO_CONFIG_FILE, bytes, env);
    expect(repoFileTrusted(repo, REPO_CONFIG_FILE, bytes, env)).toBe(true);
    // The user's other settings are kept; the file is the user's alone.
    const doc = JSON.parse(readFileSync(userFile(), 'utf8'));
    expect(doc.maxTurns).toBe(12);
    expect(doc.trustedRepos).toHaveLength(1);
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);

    const trusted = loadConfig({ repo, env });
    expect(trusted.ignored).toEqual([]);
    expect(trusted.config).toMatchObject(HOSTILE);

    writeJson(repoFile(), { ...HOSTILE, image: 'attacker/python:2' });
    expect(loadConfig({ repo, env }).ignored.length).toBe(4);
    // Trusting the new bytes replaces the old answer for that file.
    rememberTrust(repo, REPO_CONFIG_FILE, readFileSync(repoFile()), env);
    expect(JSON.parse(readFileSync(userFile(), 'utf8')).trustedRepos).toHaveLength(1);
    expect(loadConfig({ repo, env }).config.image).toBe('attacker/python:2');
  });

  it('applies the whole file for one command with trustRepo (--trust-repo-config)', () => {
    writeJson(repoFile(), HOSTILE);
    expect(loadConfig({ repo, env, trustRepo: true }).config).toMatchObject(HOSTILE);
    expect(repoFileTrusted(repo, REPO_CONFIG_FILE, readFileSync(repoFile()), env)).toBe(false);
  });

  it('headless: one warning line naming the keys; on a terminal: the answer decides and yes is remembered', async () => {
    writeJson(repoFile(), { baseUrl: HOSTILE.baseUrl, maxTurns: 99 });
    const lines: string[] = [];
    const headless = await settleRepoTrust(loadConfig({ repo, env }), {
      repo,
      interactive: false,
      log: (l) => lines.push(l),
      env,
    });
    expect(headless.baseUrl).toBeUndefined();
    expect(lines).toEqual([
      `piper-agent: ignoring baseUrl, maxTurns from ${repoFile()}: repository config not trusted (pass --trust-repo-config to use them)`,
    ]);

    const asked: string[][] = [];
    const no = await settleRepoTrust(loadConfig({ repo, env }), {
      repo,
      interactive: true,
      log: (l) => lines.push(l),
      ask: async (q) => (asked.push(q.keys.map((k) => k.key)), false),
      env,
    });
    expect(no.maxTurns).toBe(30);
    expect(repoFileTrusted(repo, REPO_CONFIG_FILE, readFileSync(repoFile()), env)).toBe(false);
    const yes = await settleRepoTrust(loadConfig({ repo, env }), {
      repo,
      interactive: true,
      log: (l) => lines.push(l),
      ask: async () => true,
      env,
    });
    expect(yes).toMatchObject({ baseUrl: HOSTILE.baseUrl, maxTurns: 99 });
    expect(asked).toEqual([['baseUrl', 'maxTurns']]);
    expect(lines).toHaveLength(1);
    // Remembered: the next load asks nothing.
    expect(loadConfig({ repo, env }).ignored).toEqual([]);
  });
});

describe('piper-agent config', () => {
  it('shows each ignored key as "ignored: repository config not trusted", the key redacted', () => {
    writeJson(repoFile(), { ...HOSTILE, maxTurns: 3 });
    const report = configReport({ repo, env });
    expect(report.config.maxTurns).toBe(3);
    expect(report.ignored.map((k) => k.key).sort()).toEqual(['apiKey', 'baseUrl', 'image', 'ledger']);
    const text = renderConfigReport(report);
    expect(text).not.toContain(HOSTILE.apiKey);
    for (const key of ['apiKey', 'baseUrl', 'image', 'ledger'])
      expect(text).toMatch(new RegExp(`^ {2}${key} .*ignored: repository config not trusted`, 'm'));
    expect(text).toContain(HOSTILE.baseUrl);
    expect(configReport({ repo, env, trustRepo: true }).ignored).toEqual([]);
  });
});
