// The loop with the real OpenAI-compatible client over real HTTP (a fake server on 127.0.0.1):
// retries are recorded in the ledger, native function calling works end to end, and a reply with
// two tool calls is a protocol violation that runs nothing.
import { SPEC_LOOP } from '../../policy/loop-settings.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../policy/events.js';
import { runLoop } from '../../policy/loop.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { Workspace } from '../../primitives/workspace.js';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { callsOf, turnsOf } from '../../runtime/ledger/turns.js';
import { OpenAIChatModel } from '../../runtime/model/openai-chat.js';
import { packageRoot } from '../../runtime/package-root.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { behave, FakeOpenAIServer } from '../helpers/fake-openai-server.js';

const repo = join(packageRoot(), 'test', 'fixtures', 'sample-repo');
let server: FakeOpenAIServer;
const lint = new LintGate({ python: 'python3' }); // the host's python3: unit tests run without the engine

beforeAll(async () => {
  server = await FakeOpenAIServer.start();
});
afterAll(async () => {
  await lint.close();
  await server.close();
});

async function run(protocol: 'json' | 'tools') {
  const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-loop-http-')), 'ledger.db'));
  const index = await CodeIndex.open(repo, ledger);
  const runId = ledger.createRun({ kind: 'fix', repo, owner: 'test' });
  // No call here reaches the sandbox; it is only there because the workspace has one.
  const sandbox = new Sandbox(new DockerEngine(), { image: 'unused' });
  const workspace = new Workspace({ repoRoot: repo, index, lint, sandbox, ledger, runId, owner: 'test' });
  const model = new OpenAIChatModel({
    baseUrl: server.baseUrl,
    apiKey: 'k',
    model: 'fake',
    protocol,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    effects: { sleep: async () => undefined },
  });
  const events: LoopEvent[] = [];
  const result = await runLoop(
    { model, tools: workspace, record: new RunRecord(ledger, runId, 'test'), emit: (e) => events.push(e) },
    {
      issueText: 'top_words returns too few words',
      settings: SPEC_LOOP,
      reproTarget: null,
      budget: { maxTurns: 5 },
    },
  );
  return { ledger, runId, result, events };
}

describe('the loop over real HTTP', () => {
  it('records every attempt of a retried model call in the turn row', async () => {
    server.enqueue(
      behave.rateLimited({ 'retry-after': '0' }),
      behave.serverError(503),
      behave.text('{"tool": "read_entity", "args": {"selector": "textstats.words.top_words"}}'),
      behave.text('{"tool": "stop", "args": {"reason": "read it"}}'),
    );
    const { ledger, runId, result } = await run('json');
    expect(result.outcome).toBe('stop');
    const turns = turnsOf(ledger, runId);
    const attempts = JSON.parse(String(turns[0]!.attempts)) as Array<{ status: number | null }>;
    expect(attempts.map((a) => a.status)).toEqual([429, 503, 200]);
    expect(JSON.parse(String(turns[1]!.attempts))).toHaveLength(1);
    const request = server.requests.at(-1)!;
    expect(request.body).toMatchObject({ temperature: 0, max_tokens: 256 });
    ledger.close();
  });

  it('runs native function calls, and refuses a reply with two calls as a protocol violation', async () => {
    server.enqueue(
      behave.toolCalls([
        { name: 'read_entity', arguments: '{"selector": "textstats.words.top_words"}' },
        { name: 'run_test', arguments: '{"target": "tests/"}' },
      ]),
      behave.toolCalls([
        { name: 'read_entity', arguments: '{"selector": "textstats.words.top_words", "body": true}' },
      ]),
      behave.toolCalls([{ name: 'stop', arguments: '{"reason": "done"}' }]),
    );
    const { ledger, runId, result, events } = await run('tools');
    expect(result.outcome).toBe('stop');
    const noop = events.find((e) => e.type === 'noop') as { reason: string } | undefined;
    expect(noop?.reason).toMatch(/^protocol violation: 2 tool calls in one reply/);
    const calls = callsOf(ledger, runId).filter((c) => c.origin === 'model');
    expect(calls.map((c) => c.tool)).toEqual(['read_entity']);
    expect(server.requests.at(-1)!.body).toHaveProperty('tools');
    ledger.close();
  });
});
