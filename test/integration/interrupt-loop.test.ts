// An interrupted `fix` stops its loop: after SIGTERM nothing more is run or recorded. The scripted
// sample run is stopped at its `init` (the code index, then the loop, still to come), at the
// model's first proposal, at its edit's proposal and at the edit's
// `execution started` (its lint check in flight); then the ledger holds no call and no model turn
// created after the run's interrupted mark, every call row is one the stream announced before the
// interrupt, and the repository differs from HEAD only by edits committed before the mark. A second
// signal during the clean-up ends the process at once with the first's code and the record intact.
// Real CLI, real engine, real SQLite.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { sha256 } from '../../primitives/fs/atomic-write.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { removeOrphans } from '../../runtime/sandbox/orphans.js';
import { startCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { engine } from '../helpers/sandbox.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

/** Runs the sample fix in stream-json; SIGTERM once stdout matches `moment`, `then` once stderr does. */
async function interrupted(
  script: string,
  moment: RegExp,
  then?: { pattern: RegExp; signal: NodeJS.Signals },
) {
  const repo = sampleRepo();
  const { child, done } = startCli(sampleFixArgs(repo, script, '--output', 'stream-json'));
  let seen = '';
  let said = '';
  let again = false;
  const reached = await new Promise<boolean>((resolve) => {
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      if (moment.test(seen)) resolve(true);
    });
    child.stderr!.on('data', (c: Buffer) => {
      said += c.toString();
      if (then && !again && then.pattern.test(said)) {
        again = true;
        child.kill(then.signal);
      }
    });
    child.on('close', () => resolve(false));
  });
  child.kill('SIGTERM');
  const result = await done;
  return { repo, reached, result, pid: child.pid! };
}

interface Row {
  id: string;
  created_at: string;
}

/** The run's record after the exit: its interrupted mark and the rows on either side of it. */
function recordOf(repo: string) {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    const db = ledger.database;
    const run = db.prepare(`SELECT id, outcome, ended_at FROM runs WHERE kind = 'fix'`).get() as {
      id: string;
      outcome: string;
      ended_at: string;
    };
    const rows = <T>(sql: string) => db.prepare(sql).all(run.id) as T[];
    return {
      run,
      calls: rows<Row & { tool: string; status: string; status_reason: string | null }>(
        `SELECT id, tool, status, status_reason, created_at FROM calls WHERE run_id = ?`,
      ),
      turns: rows<Row>(`SELECT id, created_at FROM turns WHERE run_id = ?`),
      edits: rows<Row & { path: string; after_sha256: string }>(
        `SELECT id, path, after_sha256, created_at FROM edits WHERE run_id = ? ORDER BY id`,
      ),
    };
  } finally {
    ledger.close();
  }
}

/** The ids the stream's proposal events named: every call the run announced before the interrupt. */
function announced(stdout: string): Set<string> {
  const ids = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; call_id?: string | null })
    .flatMap((e) => (e.type === 'proposal' && e.call_id ? [e.call_id] : []));
  return new Set(ids);
}

describe('an interrupted fix stops its loop (real CLI, real engine)', () => {
  it.each([
    ['init', /"type":"init"/],
    ["the model's first proposal", /"type":"proposal"[^\n]*"origin":"model"/],
    ["the edit's proposal", /"type":"proposal"[^\n]*"tool":"edit_entity"/],
    ["the edit's execution started", /"phase":"started"[^\n]*"tool":"edit_entity"/],
  ])('SIGTERM at %s: nothing runs or is recorded after it, exit 143', async (_when, moment) => {
    const { repo, reached, result } = await interrupted('sample-fix.jsonl', moment);
    expect(reached, result.stdout).toBe(true);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).not.toContain('internal error');
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'result', outcome: 'interrupted', exit_code: 143 });

    const { run, calls, turns, edits } = recordOf(repo);
    expect(run.outcome).toBe('interrupted');
    const mark = run.ended_at;
    // Nothing was created after the interrupt marked the run: no call, no model turn, no edit.
    expect(calls.filter((c) => c.created_at > mark)).toEqual([]);
    expect(turns.filter((t) => t.created_at > mark)).toEqual([]);
    expect(edits.filter((e) => e.created_at > mark)).toEqual([]);
    // Every call is one the stream announced, and events stop at the interrupt.
    const named = announced(result.stdout);
    expect(calls.filter((c) => !named.has(c.id))).toEqual([]);
    // A call left running is marked by the interrupt; none is left unfinished.
    expect(calls.filter((c) => c.status === 'dispatched' || c.status === 'validated')).toEqual([]);

    // The repository: HEAD's bytes, but for edits committed before the interrupt.
    const changed = execFileSync('git', ['diff', '--name-only', 'HEAD'], { cwd: repo }).toString().trim();
    const committed = [...new Set(edits.map((e) => e.path))];
    expect(changed === '' ? [] : changed.split('\n')).toEqual(committed);
    for (const path of committed) {
      const lastEdit = edits.filter((e) => e.path === path).at(-1)!;
      expect(sha256(readFileSync(join(repo, path)))).toBe(lastEdit.after_sha256);
    }
    expect((last as { diff: string }).diff === '').toBe(committed.length === 0);
  });

  it('a second signal during the clean-up exits at once with the first code; the record is kept', async () => {
    // slow-test.jsonl's call sleeps in its container, so the clean-up has a container to remove.
    const { repo, reached, result, pid } = await interrupted(
      'slow-test.jsonl',
      /"phase":"started"[^\n]*"tool":"execute"/,
      { pattern: /SIGTERM: removing running containers/, signal: 'SIGINT' },
    );
    expect(reached, result.stdout).toBe(true);
    expect(result.signal).toBeNull(); // not Node's default kill
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toContain("SIGINT again: exiting now; the run's record is written");
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'result', outcome: 'interrupted', exit_code: 143 });

    const { run, calls } = recordOf(repo);
    expect(run.outcome).toBe('interrupted');
    const execute = calls.find((c) => c.tool === 'execute')!;
    // `failed` once its container existed, `not_executed` before: either way, marked by the interrupt.
    expect(['failed', 'not_executed']).toContain(execute.status);
    expect(execute.status_reason).toMatch(/was interrupted \(SIGTERM\)/);

    // What the clean-up had not removed yet is the next start-up sweep's: the owner is gone. A
    // removal the process had sent before it exited may still be under way in the engine.
    await removeOrphans(engine, () => undefined);
    const left = async () =>
      (await engine.listContainers([LABEL.owner])).filter(
        (c) => (c.labels[LABEL.owner] ?? '').split(':')[1] === String(pid),
      );
    for (let i = 0; i < 100 && (await left()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await left()).toEqual([]);
  });
});
