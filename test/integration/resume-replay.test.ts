// `resume`, `replay` and `ledger` as processes, on the sample repo with the real sandbox: a scripted
// run that asks the operator ends with exit 3 and its question; `resume --answer` continues the same
// run to a verified fix with the answer recorded; `replay` re-runs recorded runs on a fresh copy and
// finds no divergence (and finds the one planted in a copy of the ledger); `ledger runs/show/export`
// read it all back. Refusals (unknown run, resolved run, ledger elsewhere, commit gone) exit 2.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun } from '../../cli/ledger/find-run.js';
import { rebuiltState } from '../../cli/ledger/resume-state.js';
import { runDocument } from '../../cli/ledger/run-document.js';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { packDirectory } from '../../runtime/images/pack-dir.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { startCli, type CliResult } from '../helpers/cli.js';
import { engine } from '../helpers/sandbox.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const root = packageRoot();
const dir = mkdtempSync(join(tmpdir(), 'piper-resume-'));
const ASK = join(root, 'test/fixtures/models/sample-ask.jsonl');
const FIX = join(root, 'test/fixtures/models/sample-fix.jsonl');
const TEST = 'tests/test_words.py';
const pids: number[] = [];

/** The real CLI, run from the scratch directory (so no default repo or ledger is found by accident). */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const { child, done } = startCli(args, { cwd: dir, env: { PIPER_LEDGER: '', CI: 'true', ...env } });
  pids.push(child.pid!);
  return done;
}

function sampleRepo(name: string): string {
  return copyAsGitRepo(join(root, 'test/fixtures/sample-repo'), join(dir, name), 'sample');
}

/** A copy of a ledger with everything in it (a WAL ledger's recent writes live beside the file). */
function copyLedger(from: string, to: string): void {
  withLedger(from, (l) => l.database.pragma('wal_checkpoint(TRUNCATE)'));
  copyFileSync(from, to);
}

function withLedger<T>(file: string, read: (ledger: Ledger) => T): T {
  const ledger = Ledger.open(file);
  try {
    return read(ledger);
  } finally {
    ledger.close();
  }
}

const ledgerOf = (repo: string) => defaultLedgerPath(repo);
const QUESTION = 'Should top_words(text, n) return exactly n words when there are at least n distinct words?';
const ANSWER = 'Yes: exactly n words whenever there are at least n distinct words.';

let askRepo: string;
let fixRepo: string;
let askRun: string;
let fixRun: string;

beforeAll(() => {
  askRepo = sampleRepo('ask');
  fixRepo = sampleRepo('fix');
});

afterAll(async () => {
  // No container of any CLI process this file started is left (pool containers included).
  const all = await engine.listContainers([LABEL.owner]);
  expect(all.filter((c) => pids.includes(Number((c.labels[LABEL.owner] ?? '').split(':')[1])))).toEqual([]);
});

describe('resume after ask_user (real CLI, real sandbox)', () => {
  it('a non-interactive run that asks exits 3 with the question in the output', async () => {
    const r = await cli([
      'fix',
      '--repo',
      askRepo,
      '--model',
      `script:${ASK}`,
      '--test',
      TEST,
      '--non-interactive',
      '--output',
      'json',
      join(askRepo, 'ISSUE.md'),
    ]);
    expect(r.code).toBe(3);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      outcome: 'ask_user',
      exit_code: 3,
      verified: false,
      question: QUESTION,
      turns: 2,
      diff: '',
    });
    askRun = result.run_id;
    expect(withLedger(ledgerOf(askRepo), (l) => getRun(l, askRun))).toMatchObject({ outcome: 'ask_user' });
  });

  it('refuses to resume without the answer, and names the question', async () => {
    const r = await cli(['resume', askRun, '--repo', askRepo, '--non-interactive']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`run ${askRun} is waiting for an answer to: ${QUESTION}`);
    expect(r.stderr).toContain(`piper-agent resume ${askRun} --answer`);
    expect(withLedger(ledgerOf(askRepo), (l) => getRun(l, askRun))).toMatchObject({ outcome: 'ask_user' });
  });

  it('resume --answer continues the same run to a verified fix, the answer recorded as a user observation', async () => {
    const r = await cli([
      'resume',
      // A prefix of the id, with 4 of its 6 random hex digits: 2 matched another run of the same
      // second once in 256 (the command then asks for more of the id, as it should).
      askRun.slice(0, 22),
      '--repo',
      askRepo,
      '--answer',
      ANSWER,
      '--non-interactive',
      '--output',
      'json',
    ]);
    expect(r.stderr).toContain(`resuming run ${askRun} (was ask_user) after 2 turn(s)`);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      run_id: askRun,
      outcome: 'resolved',
      verified: true,
      exit_code: 0,
      turns: 5,
    });
    expect(result.diff).toContain('+    return ranked[:n]');

    withLedger(ledgerOf(askRepo), (ledger) => {
      const run = findRun(ledger, askRun);
      expect(run).toMatchObject({ outcome: 'resolved', kind: 'fix' });
      expect(run.config.resumes).toEqual([expect.objectContaining({ previous_outcome: 'ask_user' })]);
      const doc = runDocument(ledger, run);
      const observations = doc.turns.flatMap((t) => t.observations);
      const asked = observations.findIndex((o) => o.kind === 'ask_user');
      expect(observations[asked + 1]).toMatchObject({
        kind: 'user',
        trust: 'trusted',
        result: { answer: ANSWER },
      });
      // The script went on after the two replies the first segment used: edit, test, stop.
      expect(doc.turns.filter((t) => t.idx !== null).map((t) => (t.action as { tool: string }).tool)).toEqual(
        ['read_entity', 'ask_user', 'edit_entity', 'run_test', 'stop'],
      );
      const calls = doc.turns.flatMap((t) => t.calls);
      expect(calls.every((c) => c.status === 'completed')).toBe(true);
      expect(calls.filter((c) => c.tool === 'run_test').map((c) => c.execution?.exit_code)).toEqual([0, 0]);
      // What `resume` rebuilds for a run whose process died is what the loop itself saved.
      const saved = run.config.loop_state as { turnsUsed: number; triggers: { fired: string[] } };
      const rebuilt = rebuiltState(doc);
      expect(rebuilt.turnsUsed).toBe(saved.turnsUsed);
      expect({ ...rebuilt.triggers, fired: [...rebuilt.triggers.fired].sort() }).toEqual({
        ...saved.triggers,
        fired: [...saved.triggers.fired].sort(),
      });
    });
  });

  it('refuses a resolved run, an unknown run, and a ledger that is elsewhere', async () => {
    const resolved = await cli(['resume', askRun, '--repo', askRepo, '--answer', 'again']);
    expect(resolved.code).toBe(2);
    expect(resolved.stderr).toContain(`run ${askRun} is resolved`);
    const unknown = await cli(['resume', 'r-nope', '--repo', askRepo, '--answer', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`no run r-nope in the ledger at ${ledgerOf(askRepo)}`);
    const elsewhere = await cli(['resume', askRun, '--repo', dir, '--answer', 'x']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`no ledger at ${ledgerOf(dir)}`);
    expect(elsewhere.stderr).toContain('--ledger PATH');
  });
});

describe('resume after the process died (real CLI, real sandbox)', () => {
  it('continues a run killed (-9) during its post-patch test, with the loop state rebuilt from the ledger', async () => {
    const repo = sampleRepo('killed');
    const { child, done } = startCli(
      [
        'fix',
        '--repo',
        repo,
        '--model',
        `script:${FIX}`,
        '--test',
        TEST,
        '--non-interactive',
        '--output',
        'stream-json',
        join(repo, 'ISSUE.md'),
      ],
      { cwd: dir, env: { PIPER_LEDGER: '', CI: 'true' } },
    );
    pids.push(child.pid!);
    let runId = '';
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        const event = JSON.parse(line);
        if (event.type === 'init') runId = event.run_id;
        if (event.type === 'execution' && event.phase === 'started' && event.tool === 'run_test')
          void killWhenDispatched();
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    // Killed once the test's call is on record as dispatched to a container, before it can complete.
    const killWhenDispatched = async () => {
      for (let i = 0; i < 500; i++) {
        // The run's own call: the regression gate's suite runs are runs of their own.
        const row = withLedger(ledgerOf(repo), (l) =>
          l.database
            .prepare(
              `SELECT status FROM calls WHERE run_id = ? AND tool = 'run_test' AND container_id IS NOT NULL`,
            )
            .get(runId),
        );
        if (row) return void child.kill('SIGKILL');
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    expect((await done).signal).toBe('SIGKILL');
    expect(withLedger(ledgerOf(repo), (l) => getRun(l, runId))).toMatchObject({ outcome: null });

    const r = await cli(['resume', runId, '--repo', repo, '--non-interactive', '--output', 'json']);
    expect(r.stderr).toContain(
      `resuming run ${runId} (was unfinished) after 3 turn(s); loop state rebuilt from the ledger`,
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      run_id: runId,
      outcome: 'resolved',
      verified: true,
      turns: 4,
    });
    withLedger(ledgerOf(repo), (ledger) => {
      const calls = runDocument(ledger, findRun(ledger, runId)).turns.flatMap((t) => t.calls);
      // The test the kill interrupted is on record as such, and the post-patch test ran again.
      const tests = calls.filter((c) => c.tool === 'run_test' && c.origin === 'trigger');
      expect(tests.map((c) => c.status)).toEqual(['failed', 'completed']);
      expect(tests[0]!.status_reason).toMatch(/owner process \d+ died/);
      expect(tests[1]!.execution?.exit_code).toBe(0);
    });
  });
});

describe('replay (real CLI, real sandbox)', () => {
  it('replays the finished sample run on a fresh copy with no divergence', async () => {
    const fix = await cli([
      'fix',
      '--repo',
      fixRepo,
      '--model',
      `script:${FIX}`,
      '--test',
      TEST,
      '--non-interactive',
      '--output',
      'json',
      join(fixRepo, 'ISSUE.md'),
    ]);
    expect(fix.code).toBe(0);
    fixRun = JSON.parse(fix.stdout).run_id;

    const countRuns = () =>
      withLedger(ledgerOf(fixRepo), (l) => l.database.prepare('SELECT COUNT(*) AS n FROM runs').get());
    // The fix and its regression gate's suite runs (base and final).
    const before = countRuns();
    const r = await cli(['replay', fixRun, '--repo', fixRepo, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ run_id: fixRun, divergence: null });
    expect(report.replay_run_id).not.toBe(fixRun);
    expect(report.compared).toMatchObject({ turns: 5, calls: 10, executions: 2, observations: 11 });
    // Rebuilt with the recorded boundary, a turn's prompt is the recorded one until sandbox output
    // (pytest's timing line) enters it.
    expect(report.compared.identical_prompts).toBeGreaterThan(0);
    const text = await cli(['replay', fixRun, '--repo', fixRepo]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('no divergence');
    // The replay worked on a copy: the engineer's repository and ledger gained nothing.
    expect(countRuns()).toEqual(before);
    expect(
      execFileSync('git', ['worktree', 'list'], { cwd: fixRepo, encoding: 'utf8' }).trim().split('\n'),
    ).toHaveLength(1);
  });

  it('replays a resumed run with its recorded answer, with no divergence', async () => {
    const r = await cli(['replay', askRun, '--repo', askRepo, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).divergence).toBeNull();
  });

  it('reports the first divergence with exit 4 when the record says otherwise', async () => {
    const planted = join(dir, 'planted.db');
    copyLedger(ledgerOf(fixRepo), planted);
    withLedger(planted, (ledger) => {
      const call = ledger.database
        .prepare(`SELECT id FROM calls WHERE run_id = ? AND tool = 'run_test' ORDER BY created_at LIMIT 1`)
        .get(fixRun) as { id: string };
      ledger.database.prepare('UPDATE executions SET exit_code = 1 WHERE call_id = ?').run(call.id);
    });
    const r = await cli(['replay', fixRun, '--ledger', planted, '--repo', fixRepo]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('first divergence: turn 3, execution #1');
    expect(r.stdout).toContain('recorded: {"exit_code":1,"timed_out":false,"oom_killed":false}');
    expect(r.stdout).toContain('replayed: {"exit_code":0,"timed_out":false,"oom_killed":false}');
  });

  it('runs a recorded image piper did not build only when the user names it', async () => {
    // A child of the sandbox image: the same files, but not an image piper recorded building.
    const context = mkdtempSync(join(tmpdir(), 'piper-foreign-'));
    writeFileSync(join(context, 'Dockerfile'), `FROM ${loadRecipe().ref}\nLABEL piper.test=replay-image\n`);
    const foreign = `piper-test-foreign:${process.pid}`;
    await engine.buildImage(packDirectory(context), { t: foreign, labels: {} }, () => {});
    try {
      const planted = join(dir, 'foreign-image.db');
      copyLedger(ledgerOf(fixRepo), planted);
      withLedger(planted, (l) =>
        l.database
          .prepare(`UPDATE runs SET config = json_set(config, '$.image', ?) WHERE id = ?`)
          .run(foreign, fixRun),
      );
      const refused = await cli(['replay', fixRun, '--ledger', planted, '--repo', fixRepo]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `run ${fixRun} ran in the image ${foreign}, which piper did not build and your configuration does not name`,
      );
      expect(refused.stderr).toContain(`PIPER_IMAGE=${foreign} piper-agent replay ${fixRun}`);
      const named = await cli(['replay', fixRun, '--ledger', planted, '--repo', fixRepo], {
        PIPER_IMAGE: foreign,
      });
      expect(named.stderr).not.toContain('which piper did not build');
      expect(named.code, named.stdout + named.stderr).toBe(0);
    } finally {
      await engine.removeImage(foreign).catch(() => undefined);
    }
  });

  it('says so when the commit the run started from is gone', async () => {
    const gone = join(dir, 'gone.db');
    copyLedger(ledgerOf(fixRepo), gone);
    withLedger(gone, (l) =>
      l.database
        .prepare('UPDATE runs SET head = ? WHERE id = ?')
        .run('0123456789abcdef0123456789abcdef01234567', fixRun),
    );
    const r = await cli(['replay', fixRun, '--ledger', gone, '--repo', fixRepo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the run's commit 0123456789ab is gone from ${fixRepo}`);
  });
});

describe('ledger runs | show | export (real CLI)', () => {
  it('lists runs with outcome, turns, tokens, cost and the issue', async () => {
    const json = await cli(['ledger', 'runs', '--repo', fixRepo, '--json']);
    expect(json.code).toBe(0);
    // The newest fix run (the regression gate's suite runs are listed too, as run_test runs).
    const entry = (JSON.parse(json.stdout) as Array<{ kind: string }>).find((e) => e.kind === 'fix');
    expect(entry).toMatchObject({
      id: fixRun,
      kind: 'fix',
      outcome: 'resolved',
      turns: 4,
      cost_usd: 0,
      issue: '`textstats.words.top_words` returns one word too few.',
    });
    expect((entry as unknown as { tokens: number }).tokens).toBeGreaterThan(0);
    const text = await cli(['ledger', 'runs', '--repo', askRepo]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`${askRun}\\s+\\S+ \\S+\\s+fix\\s+resolved\\s+5\\s+\\d+\\s+\\$0\\.0000`),
    );
  });

  it('shows one run in full', async () => {
    const r = await cli(['ledger', 'show', askRun, '--repo', askRepo]);
    expect(r.code).toBe(0);
    for (const expected of [
      `run ${askRun} · fix · resolved`,
      'resumed 1×',
      'before turn 1 (triggers on the issue text)',
      'turn 2 · tools:',
      `action: ask_user {"question":"${QUESTION}"}`,
      `observation user · trusted · {"answer":"${ANSWER}"}`,
      // The recorded args carry the run's environment (plugin autoload off), cut short in the listing.
      '· trigger · run_test {"target":"tests/test_words.py","timeout":120,"env":{"PYTEST_DISABLE_PLUGIN_AUTOLOAD":"1",',
      'sandbox: exit 0 ·',
      'observation test tests/test_words.py · trusted · passed, exit 0',
      'edits: 1',
      '+    return ranked[:n]',
    ]) {
      expect(r.stdout).toContain(expected);
    }
  });

  it('shows the whole run as one JSON document, and exports its rows as a piper-run/1 artifact', async () => {
    const exported = await cli(['ledger', 'export', fixRun, '--repo', fixRepo]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ format: 'piper-run/1', run_id: fixRun });
    const r = await cli(['ledger', 'show', fixRun, '--repo', fixRepo, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      format: 'piper-agent.run/1',
      ledger: ledgerOf(fixRepo),
      run: { id: fixRun, outcome: 'resolved' },
    });
    const tests = doc.turns
      .flatMap((t: { calls: Array<{ tool: string }> }) => t.calls)
      .filter((c: { tool: string }) => c.tool === 'run_test');
    expect(
      tests.map((c: { execution: { exit_code: number; stdout: string } }) => c.execution.exit_code),
    ).toEqual([0, 0]);
    expect(tests[0].execution.stdout).toContain('passed');
    expect(doc.edits[0]).toMatchObject({ path: 'textstats/words.py', undone_at: null });
  });

  it('refuses an unknown run and a missing ledger with exit 2', async () => {
    const unknown = await cli(['ledger', 'show', 'r-nope', '--repo', fixRepo]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no run r-nope');
    const missing = await cli(['ledger', 'runs', '--ledger', join(dir, 'none.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no ledger at ${join(dir, 'none.db')}`);
  });
});
