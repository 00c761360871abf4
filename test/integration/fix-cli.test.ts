// `piper-agent fix` as a process, headless, against the real sandbox: the golden stream-json of a
// scripted run, every exit code, the exact rejection strings, trace completeness in the ledger,
// and Ctrl-C cleanup in the middle of a sandbox run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { runCli, startCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { engine } from '../helpers/sandbox.js';
import { expectTraceComplete } from '../helpers/trace.js';
import { getCall } from '../../runtime/ledger/calls.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const fix = sampleFixArgs;

/** Run-specific values (ids, paths, timings) replaced so two runs of one script compare equal. */
function normalize(stream: string, repo: string): string {
  return stream
    .replaceAll(repo, '<repo>')
    .replaceAll(packageRoot(), '<pkg>')
    .replace(/r-\d{8}-\d{6}-[0-9a-f]{6}/g, '<run>')
    .replace(/c-[0-9a-f]{12}/g, '<call>')
    .replace(/"ts":"[^"]+"/g, '"ts":"<ts>"')
    .replace(/"ms":\d+(\.\d+)?/g, '"ms":0')
    .replace(/"seconds":\d+(\.\d+)?/g, '"seconds":0')
    .replace(/piper-sandbox-python:[0-9a-f]{12}/g, 'piper-sandbox-python:<recipe>')
    .replace(/in [\d.]+s/g, 'in <t>s');
}

describe('piper-agent fix, headless (real sandbox)', () => {
  it('streams the golden event sequence of the sample run and exits 0 with a verified fix', async () => {
    const repo = sampleRepo();
    const r = await runCli(fix(repo, 'sample-fix.jsonl', '--output', 'stream-json'));
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(events[0]!.type).toBe('init');
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      outcome: 'resolved',
      verified: true,
      exit_code: 0,
    });
    expect(readFileSync(join(repo, 'textstats', 'words.py'), 'utf8')).toContain('return ranked[:n]');
    const golden = join(packageRoot(), 'test', 'fixtures', 'golden', 'sample-fix.stream.jsonl');
    const actual = normalize(r.stdout, repo);
    // A missing golden is a failure, not a fresh baseline: UPDATE_GOLDEN=1 writes it on purpose.
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, actual);
    expect(existsSync(golden), `${golden} is missing (UPDATE_GOLDEN=1 writes it)`).toBe(true);
    expect(actual).toBe(readFileSync(golden, 'utf8'));
    const runId = (events.at(-1) as unknown as { run_id: string }).run_id;
    expectTraceComplete(defaultLedgerPath(repo), runId);
  });

  it('rejects with the spec strings, counts no-op turns, and exits 4 on a stop without a fix', async () => {
    const repo = sampleRepo();
    const r = await runCli(fix(repo, 'rejections.jsonl', '--output', 'stream-json'));
    expect(r.code).toBe(4);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const reasons = events.filter((e) => e.type === 'rejection').map((e) => e.reason);
    expect(reasons).toEqual([
      'unknown tool: bash',
      'precondition failed: no evidence for selector textstats.words.word_counts',
      'invalid arg: window (expected int 1..100, got 0)',
      'precondition failed: unknown selector textstats.words.nope',
    ]);
    expect(events.filter((e) => e.type === 'noop')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      outcome: 'stop',
      verified: false,
      exit_code: 4,
      turns: 5,
    });
    expectTraceComplete(defaultLedgerPath(repo), String(events.at(-1)!.run_id));
  });

  it('exits 3 with the question when the model asks and nobody can answer', async () => {
    const repo = sampleRepo();
    const r = await runCli(fix(repo, 'ask-then-fix.jsonl', '--output', 'json'));
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      outcome: 'ask_user',
      question: 'Should top_words(text, n) return exactly n words?',
      exit_code: 3,
    });
  });

  it('exits 4 at the turn cap, 1 when the model fails, 2 for bad usage or configuration, 5 without an engine', async () => {
    const repo = sampleRepo();
    const capped = await runCli(fix(repo, 'rejections.jsonl', '--output', 'json', '--max-turns', '2'));
    expect(capped.code).toBe(4);
    expect(JSON.parse(capped.stdout)).toMatchObject({
      outcome: 'cap',
      reason: 'turn cap: 2 of 2 turns used',
    });
    const exhausted = await runCli(fix(repo, 'one-read.jsonl', '--output', 'json'));
    expect(exhausted.code).toBe(1);
    expect(JSON.parse(exhausted.stdout)).toMatchObject({
      outcome: 'error',
      reason: expect.stringMatching(/^model call failed: .*script/),
    });
    const usage = await runCli([
      'fix',
      '--repo',
      repo,
      '--policy',
      'bogus',
      '--model',
      'script:x.jsonl',
      'issue',
    ]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--policy must be policy or current');
    const noModel = await runCli(['fix', '--repo', repo, 'issue'], {
      env: { PIPER_MODEL: '', HOME: repo, XDG_CONFIG_HOME: repo },
    });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/no model configured: pass --model NAME \(OpenAI: OPENAI_API_KEY/);
    const noBaseUrl = await runCli(['fix', '--repo', repo, '--model', 'openai:some-model', 'issue'], {
      env: { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' },
    });
    expect(noBaseUrl.code).toBe(2);
    expect(noBaseUrl.stderr).toContain('no API key and no base URL for openai:some-model');
    expect(noBaseUrl.stderr).toContain('OPENAI_BASE_URL');
    const noEngine = await runCli(fix(repo, 'sample-fix.jsonl'), {
      env: { DOCKER_HOST: `unix://${join(repo, 'none.sock')}` },
    });
    expect(noEngine.code).toBe(5);
    expect(noEngine.stderr).toMatch(/no Docker engine answers/);
  });

  it('on Ctrl-C in a sandbox run: removes the container, marks the ledger, exits 130 with a summary', async () => {
    const repo = sampleRepo();
    const { child, done } = startCli(fix(repo, 'slow-test.jsonl', '--output', 'stream-json'));
    // The call's container is the one its ledger row names: a fresh one, or a warm pool container
    // (labelled `pool`) when the pool was ready first, as it is when the index build outlasts its start.
    let seen = '';
    const callId = await new Promise<string>((resolve) => {
      child.stdout!.on('data', (c: Buffer) => {
        seen += c.toString();
        const started = /"phase":"started"[^\n]*"call_id":"(c-[0-9a-f]{12})","tool":"execute"/.exec(seen);
        if (started) resolve(started[1]!);
      });
      child.on('close', () => resolve(''));
    });
    expect(callId, seen).not.toBe('');
    const watch = Ledger.open(defaultLedgerPath(repo));
    let containerId = '';
    try {
      for (let i = 0; i < 600 && !containerId; i++) {
        const row = getCall(watch, callId);
        const running = (await engine.listContainers([LABEL.owner])).filter((c) => c.state === 'running');
        containerId = running.find((c) => c.id === row?.container_id)?.id ?? '';
        if (!containerId) await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      watch.close();
    }
    expect(containerId).not.toBe('');
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/SIGINT: run r-\S+ stopped; its running container was removed/);
    const left = (await engine.listContainers([LABEL.owner])).filter(
      (c) => (c.labels[LABEL.owner] ?? '').split(':')[1] === String(child.pid),
    );
    expect(left).toEqual([]);
    const ledger = Ledger.open(defaultLedgerPath(repo));
    const call = ledger.database.prepare('SELECT * FROM calls WHERE container_id = ?').get(containerId) as {
      status: string;
      status_reason: string;
    };
    expect(call.status).toBe('failed');
    expect(call.status_reason).toMatch(/interrupted \(SIGINT\)/);
    const run = ledger.database.prepare("SELECT outcome FROM runs WHERE kind = 'fix'").get() as {
      outcome: string;
    };
    expect(run.outcome).toBe('interrupted');
    ledger.close();
  });
});
