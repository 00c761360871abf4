// Models over real HTTP through the real CLI, headless, with the real sandbox: a fake Anthropic
// Messages server on 127.0.0.1 scripts a whole `fix` of the sample repository with native tool use
// (sampling from the config, recorded on the run); a reply cut at the completion-token limit is a
// no-op that says which key raises it; and a refused API key is a configuration error (exit 2).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { runCli } from '../helpers/cli.js';
import { anthropic, FakeAnthropicServer } from '../helpers/fake-anthropic-server.js';
import { sampleRepo } from '../helpers/sample-repo.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

let server: FakeAnthropicServer;
beforeAll(async () => {
  server = await FakeAnthropicServer.start();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

const MODEL = 'claude-test';

/** An engineer's environment with an Anthropic key and the given user config, nothing else of the machine's. */
function userEnv(config: unknown = {}): NodeJS.ProcessEnv {
  const xdg = mkdtempSync(join(tmpdir(), 'piper-model-xdg-'));
  mkdirSync(join(xdg, 'piper-agent'));
  writeFileSync(join(xdg, 'piper-agent', 'config.json'), JSON.stringify(config));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(PIPER_|OPENAI_|ANTHROPIC_|GITHUB_|PIP_)|^TOOL_POLICY$/.test(name)) delete env[name];
  return {
    ...env,
    XDG_CONFIG_HOME: xdg,
    CI: 'true',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: server.baseUrl,
  };
}

function fixArgs(repo: string): string[] {
  return [
    'fix',
    '--repo',
    repo,
    '--model',
    `anthropic:${MODEL}`,
    '--test',
    'tests/test_words.py',
    '--non-interactive',
    '--output',
    'stream-json',
    join(repo, 'ISSUE.md'),
  ];
}

function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('anthropic:NAME through the CLI (fake Messages API, real sandbox)', () => {
  it('fixes the sample repository with native tool use; sampling from the config is sent and recorded', async () => {
    const repo = sampleRepo();
    server.enqueue(
      anthropic.toolUse('read_entity', { selector: 'textstats.words.top_words', body: true }),
      anthropic.toolUse('edit_entity', {
        selector: 'textstats.words.top_words',
        search: 'return ranked[: n - 1]',
        replace: 'return ranked[:n]',
      }),
      anthropic.toolUse('run_test', { target: 'tests/' }),
      anthropic.toolUse('stop', { reason: 'top_words now returns n words; the tests pass' }),
    );
    const env = userEnv({
      sampling: { models: { [MODEL]: { temperature: 'none', maxCompletionTokens: 512 } } },
      prices: { [MODEL]: { promptPerMillion: 3, completionPerMillion: 15 } },
    });
    const r = await runCli(fixArgs(repo), { env });
    expect(r.code, r.stderr).toBe(0);
    const result = events(r.stdout).at(-1)!;
    expect(result).toMatchObject({ type: 'result', outcome: 'resolved', verified: true, exit_code: 0 });
    expect(result.cost_usd).toBeGreaterThan(0);
    expect(readFileSync(join(repo, 'textstats', 'words.py'), 'utf8')).toContain('return ranked[:n]');

    expect(server.requests).toHaveLength(4);
    for (const req of server.requests) {
      expect([req.method, req.path, req.headers['x-api-key']]).toEqual([
        'POST',
        '/v1/messages',
        'sk-ant-test',
      ]);
      expect(req.headers['anthropic-version']).toBe('2023-06-01');
    }
    const first = server.requests[0]!.body as Record<string, unknown>;
    expect(first.model).toBe(MODEL);
    expect(first.max_tokens).toBe(512);
    expect('temperature' in first).toBe(false);
    expect(typeof first.system).toBe('string');
    expect((first.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(['user']);
    const tools = first.tools as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).toContain('stop');
    expect(Object.keys(tools[0]!).sort()).toEqual(['description', 'input_schema', 'name']);

    const ledger = Ledger.open(defaultLedgerPath(repo));
    const run = getRun(ledger, String(result.run_id))!;
    ledger.close();
    expect(run.model).toBe(`anthropic:${MODEL}`);
    expect(JSON.parse(String(run.config)).sampling).toEqual({ temperature: null, maxCompletionTokens: 512 });
    const runId = String(result.run_id);
    const shown = await runCli(['ledger', 'show', runId, '--repo', repo], { env });
    expect(shown.stdout).toContain('sampling: no temperature, 512 completion tokens');

    // The recorded tool-use replies replay as the calls they were, with no request to the server:
    // replayed as text, turn 1's action would diverge (a no-op for the recorded read_entity). A
    // later prompt may differ by the test run's duration in pytest's output ("4 passed in 0.04s").
    const replay = await runCli(['replay', runId, '--repo', repo, '--json'], { env });
    const report = JSON.parse(replay.stdout) as { divergence: { kind: string } | null };
    expect(report.divergence === null || report.divergence.kind === 'prompt', replay.stdout).toBe(true);
    expect(server.requests).toHaveLength(4);
  }, 420_000); // a fix and its replay, each with sandbox runs, on a shared machine

  it('a reply cut at the token limit is a no-op saying which key raises the limit', async () => {
    const repo = sampleRepo();
    server.enqueue(
      anthropic.text('{"tool": "edit_entity", "args": {"replace": "def top_words(', 'max_tokens'),
      anthropic.toolUse('stop', { reason: 'giving up' }),
    );
    const r = await runCli(fixArgs(repo), { env: userEnv() });
    expect(r.code, r.stderr).toBe(4);
    const noops = events(r.stdout)
      .filter((e) => e.type === 'noop')
      .map(({ ts: _ts, ...e }) => e);
    expect(noops).toEqual([
      {
        type: 'noop',
        turn: 1,
        reason: 'reply cut at 256 completion tokens; raise sampling.maxCompletionTokens',
      },
    ]);
  });

  it('a refused API key ends the run as a configuration error: exit 2, "the API key was refused by URL"', async () => {
    const repo = sampleRepo();
    server.enqueue(anthropic.error(401, 'authentication_error'));
    const r = await runCli(fixArgs(repo), { env: userEnv() });
    expect(r.code, r.stderr).toBe(2);
    expect(server.requests).toHaveLength(1); // no retry: asking again gets the same answer
    const result = events(r.stdout).at(-1)!;
    expect(result).toMatchObject({ type: 'result', outcome: 'error', exit_code: 2 });
    expect(String(result.reason)).toContain(`the API key was refused by ${server.baseUrl}`);
    expect(String(result.reason)).toContain('check ANTHROPIC_API_KEY');
  });

  it('doctor names a refused key with its fix (one GET /v1/models), exit 1', async () => {
    const repo = sampleRepo();
    server.enqueue(anthropic.error(401, 'authentication_error'));
    const env = { ...userEnv(), PIPER_MODEL: `anthropic:${MODEL}` };
    const r = await runCli(['doctor', '--json', '--repo', repo, '--ledger', join(repo, 'l.db')], { env });
    expect(r.code, r.stderr).toBe(1);
    const { checks } = JSON.parse(r.stdout) as { checks: Array<{ name: string }> };
    expect(checks.find((c) => c.name === 'model')).toEqual({
      name: 'model',
      ok: false,
      detail: `the API key was refused by ${server.baseUrl} (HTTP 401)`,
      fix: 'check ANTHROPIC_API_KEY: the server did not accept it',
    });
    expect(server.requests.map((q) => [q.method, q.path])).toEqual([['GET', '/v1/models?limit=1000']]);
  });
});
