// The host side of the boundary, through the real CLI and the real sandbox: escape sequences from
// the sandbox, the model and the issue never reach a terminal raw;
// one live run per repository; a reply with duplicate keys is a no-op turn and the run goes on.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoLockPath } from '../../runtime/host/repo-lock.js';
import { runCli, startCli } from '../helpers/cli.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';

/** Title change, screen clear and an OSC 8 link. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\';
const ESC = '\x1b';
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J';

/** A Python string literal of `text`, controls as \x escapes. */
const pyLiteral = (text: string) =>
  `'${[...text].map((c) => (c === '\\' ? '\\\\' : c < ' ' ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('')}'`;

/** A script model: a duplicate-key reply, a sandbox run printing HOSTILE, a stop whose reason holds it. */
function hostileScript(): string {
  const replies = [
    '{"tool":"stop","tool":"execute","args":{"code":"print(1)"}}',
    JSON.stringify({
      tool: 'execute',
      args: { code: `import sys\nsys.stdout.write(${pyLiteral(HOSTILE)})` },
    }),
    JSON.stringify({ tool: 'stop', args: { reason: `done ${HOSTILE}` } }),
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'piper-hostile-')), 'hostile.jsonl');
  writeFileSync(file, replies.map((r) => JSON.stringify(r)).join('\n'));
  return file;
}

const ISSUE = `Run a script to compute it ${HOSTILE}; execute the code`;
const fix = (repo: string, model: string, ...extra: string[]) => [
  'fix',
  '--repo',
  repo,
  '--model',
  `script:${model}`,
  '--non-interactive',
  ...extra,
  ISSUE,
];

describe('terminal injection and hostile replies (real CLI, real sandbox)', () => {
  it('text output and ledger show/runs carry no ESC; stream-json the exact string; duplicate keys are a no-op', async () => {
    const script = hostileScript();
    const repo = sampleRepo();
    const text = await runCli(fix(repo, script, '--output', 'text'));
    expect(text.code, text.stderr).toBe(4); // stopped, no verified fix
    expect(text.stdout).not.toContain(ESC);
    expect(text.stderr).not.toContain(ESC);
    expect(text.stdout).toContain(SHOWN);
    expect(text.stdout).toContain('no-op turn: malformed JSON: duplicate key "tool" in $');

    const again = sampleRepo();
    const stream = await runCli(fix(again, script, '--output', 'stream-json'));
    const events = stream.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The duplicate-key reply: a no-op turn, and the run went on to execute and stop.
    expect(events.filter((e) => e.type === 'noop').map(({ ts: _ts, ...e }) => e)).toEqual([
      { type: 'noop', turn: 1, reason: 'malformed JSON: duplicate key "tool" in $' },
    ]);
    const execution = events.find((e) => e.type === 'execution' && e.phase === 'finished');
    expect(execution).toMatchObject({ tool: 'execute', exit_code: 0 });
    const observation = events.find((e) => e.type === 'observation' && e.kind === 'execute');
    expect(String(observation?.summary)).toContain(HOSTILE.slice(0, 20));
    expect(events.at(-1)).toMatchObject({ type: 'result', outcome: 'stop', reason: `done ${HOSTILE}` });
    const runId = events[0]!.run_id as string;

    const show = await runCli(['ledger', 'show', runId, '--repo', again]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toContain(ESC);
    expect(show.stdout).toContain(SHOWN);
    const runs = await runCli(['ledger', 'runs', '--repo', again]);
    expect(runs.stdout).not.toContain(ESC);
    expect(runs.stdout).toContain(runId);
    // The JSON outputs keep the exact text: `show --json` and the piper-run/1 export.
    const json = await runCli(['ledger', 'show', runId, '--json', '--repo', again]);
    expect((JSON.parse(json.stdout) as { run: { issue: string } }).run.issue).toBe(ISSUE);
    const exported = await runCli(['ledger', 'export', runId, '--repo', again]);
    const doc = JSON.parse(exported.stdout) as { tables: { runs: Array<{ issue: string }> } };
    expect(doc.tables.runs[0]!.issue).toBe(ISSUE);
  });
});

describe('one live run per repository (real CLI)', () => {
  it('a second fix, an undo and a resume refuse with the live run id; SIGTERM releases the lock', async () => {
    const repo = sampleRepo();
    const first = startCli(fix(repo, join(MODELS, 'slow-test.jsonl'), '--output', 'stream-json'));
    let out = '';
    first.child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    for (let i = 0; i < 600 && !out.includes('"type":"init"'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const runId = (JSON.parse(out.split('\n')[0]!) as { run_id: string }).run_id;
    expect(existsSync(repoLockPath(repo))).toBe(true);

    const second = await runCli(fix(repo, join(MODELS, 'slow-test.jsonl'), '--output', 'json'));
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`another piper-agent run is live on ${repo}: run ${runId}`);
    // --output json: the refusal is also the one JSON error object on stdout, and nothing else.
    expect(JSON.parse(second.stdout)).toMatchObject({
      type: 'error',
      error: { kind: 'busy', exit_code: 2 },
    });
    expect(second.stdout.trim().split('\n')).toHaveLength(1);
    const undo = await runCli(['undo', runId, '--repo', repo]);
    expect(undo.code).toBe(2);
    expect(undo.stderr).toContain(`run ${runId}`);

    first.child.kill('SIGTERM');
    const ended = await first.done;
    expect(ended.code).toBe(143);
    expect(existsSync(repoLockPath(repo))).toBe(false);

    // With the first gone, its run can be resumed (and the lock is free again afterwards).
    const resumed = await runCli(['resume', runId, '--repo', repo, '--output', 'json', '--non-interactive']);
    expect(resumed.stderr).not.toContain('another piper-agent run is live');
    expect(existsSync(repoLockPath(repo))).toBe(false);
  });

  it('a lock left by a dead process is taken over', async () => {
    const repo = sampleRepo();
    const dead = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
    );
    mkdirSync(join(repo, '.piper'), { recursive: true });
    writeFileSync(
      repoLockPath(repo),
      JSON.stringify({
        host: hostname(),
        pid: dead,
        started: '1',
        run_id: 'r-dead',
        command: 'fix',
        nonce: 'x',
      }),
    );
    const script = join(mkdtempSync(join(tmpdir(), 'piper-stop-')), 'stop.jsonl');
    writeFileSync(script, JSON.stringify('{"tool":"stop","args":{"reason":"nothing to do"}}'));
    const r = await runCli(fix(repo, script, '--output', 'json'));
    expect(r.code, r.stderr).toBe(4);
    expect(existsSync(repoLockPath(repo))).toBe(false);
  });
});
