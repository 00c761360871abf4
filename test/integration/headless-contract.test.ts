// The headless contract as a process sees it: a stream-json run stopped by SIGINT or SIGTERM still
// ends with a `result` (outcome interrupted), every line matches the published schema, and a
// failure before the run starts is one JSON `error` object on stdout in the JSON formats.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorEventSchema, streamEventSchema } from '../../cli/render/stream-schema.js';
import { runCli, startCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';

function lines(stdout: string): unknown[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
}

/** Starts the slow scripted run and signals it once its sandbox call has started. */
async function interrupted(signal: 'SIGINT' | 'SIGTERM') {
  const repo = sampleRepo();
  const { child, done } = startCli(sampleFixArgs(repo, 'slow-test.jsonl', '--output', 'stream-json'));
  let seen = '';
  await new Promise<void>((resolve) => {
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      if (/"phase":"started"[^\n]*"tool":"execute"/.test(seen)) resolve();
    });
    child.on('close', () => resolve());
  });
  child.kill(signal);
  return done;
}

describe('the headless contract (real CLI, real sandbox)', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'a stream-json run stopped by %s ends with a result, outcome interrupted',
    async (signal, code) => {
      const r = await interrupted(signal);
      expect(r.code, r.stderr).toBe(code);
      const events = lines(r.stdout).map((e) => streamEventSchema.parse(e));
      expect(events[0]).toMatchObject({ type: 'init', schema: 'piper-stream/2' });
      expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
      // `started` names the ledger's call while it runs: the same id the interrupted row has.
      const started = events.find((e) => e.type === 'execution' && e.tool === 'execute');
      expect(started).toMatchObject({ phase: 'started', call_id: expect.stringMatching(/^c-[0-9a-f]{12}$/) });
      expect(events.at(-1)).toMatchObject({
        type: 'result',
        outcome: 'interrupted',
        verified: false,
        exit_code: code,
        run_id: (events[0] as { run_id: string }).run_id,
        diff: '',
      });
    },
  );

  it('a bad config key and a missing model are one JSON error object on stdout, exit 2', async () => {
    const repo = sampleRepo();
    const home = join(repo, '.home');
    mkdirSync(join(home, 'piper-agent'), { recursive: true });
    writeFileSync(join(home, 'piper-agent', 'config.json'), JSON.stringify({ maxTurnz: 3 }));
    const badKey = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'), {
      env: { HOME: home, XDG_CONFIG_HOME: home },
    });
    expect(badKey.code).toBe(2);
    const badKeyError = errorEventSchema.parse(JSON.parse(badKey.stdout));
    expect(badKeyError.error).toMatchObject({ kind: 'config', exit_code: 2 });
    expect(badKeyError.error.message).toMatch(/bad configuration in .*config\.json/);
    expect(badKey.stderr).toContain('bad configuration');

    const noModel = await runCli(['fix', '--repo', repo, '--output', 'stream-json', 'issue'], {
      env: { PIPER_MODEL: '', HOME: repo, XDG_CONFIG_HOME: repo },
    });
    expect(noModel.code).toBe(2);
    const out = lines(noModel.stdout);
    expect(out).toHaveLength(1);
    expect(errorEventSchema.parse(out[0]).error).toMatchObject({
      kind: 'config',
      message: expect.stringMatching(/^no model configured/),
      exit_code: 2,
    });
  });
});
