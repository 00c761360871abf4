// The Swarm job's way back (eval/cluster/): the framed, checksummed result block, read out of logs
// around it and refused when cut short, altered or naming another instance; and the merge of the
// job's ledger into OUT/ledger.db on real SQLite: integer ids shifted past the target's, every
// reference to them with them, content-addressed rows shared, the same file twice a no-op.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeResultBlock, encodeResultBlock } from '../../eval/cluster/result-block.js';
import { readJobResult, JOB_RESULT_SCHEMA } from '../../eval/cluster/job-result.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { mergeLedgerFile } from '../../runtime/ledger/merge.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { dispatchCall, getCall } from '../../runtime/ledger/calls.js';

describe('result block', () => {
  const value = { a: 1, text: 'x'.repeat(5000), nested: [true, null, 'é'] };

  it('round-trips a value from among other log lines', () => {
    const log = `starting\nsome progress\n${encodeResultBlock(value)}trailing line\n`;
    expect(decodeResultBlock(log)).toEqual({ ok: true, value });
  });

  it('refuses a block cut short, one with a changed byte, and a log without one', () => {
    const block = encodeResultBlock(value);
    const lines = block.split('\n');
    expect(decodeResultBlock(lines.slice(0, 2).join('\n'))).toEqual({
      ok: false,
      reason: 'the result block is cut short (no end line)',
    });
    const body = lines[1]!;
    const flipped = body.slice(0, 10) + (body[10] === 'A' ? 'B' : 'A') + body.slice(11);
    expect(decodeResultBlock([lines[0], flipped, ...lines.slice(2)].join('\n'))).toMatchObject({
      ok: false,
      reason: 'the result block fails its checksum',
    });
    expect(decodeResultBlock(lines.filter((_, i) => i !== 1).join('\n'))).toMatchObject({ ok: false });
    expect(decodeResultBlock('nothing here\n')).toEqual({
      ok: false,
      reason: 'the job printed no result block',
    });
  });

  it('reads a job result only for the instance and task version asked for', () => {
    const result = {
      schema: JOB_RESULT_SCHEMA,
      model: 'sim:1',
      arm: 'policy',
      taskId: 't1',
      taskDigest: 'd1',
      runId: 'r-1',
      resolved: true,
      details: { wallS: 1 },
      ledger: '',
    };
    const log = encodeResultBlock(result);
    const key = { model: 'sim:1', arm: 'policy', taskId: 't1' };
    expect(readJobResult(log, key, 'd1')).toEqual({ ok: true, result });
    expect(readJobResult(log, { ...key, arm: 'current' }, 'd1')).toMatchObject({ ok: false });
    expect(readJobResult(log, key, 'd2')).toEqual({
      ok: false,
      reason: 'the job ran another version of the task (its digest differs)',
    });
    expect(readJobResult(encodeResultBlock({ ...result, schema: 'other' }), key, 'd1')).toMatchObject({
      ok: false,
    });
  });
});

const dir = () => mkdtempSync(join(tmpdir(), 'piper-merge-test-'));

/** A ledger with one fix run: a turn, a call on it, an observation of the call, a shared prompt part. */
function ledgerWithRun(path: string, tag: string): { ledger: Ledger; run: string; call: string } {
  const ledger = Ledger.open(path);
  const run = createRun(ledger, { kind: 'fix', repo: `/r/${tag}`, owner: 'h:1:1' });
  const db = ledger.database;
  const t = new Date().toISOString();
  const turn = Number(
    db.prepare(`INSERT INTO turns (run_id, idx, created_at) VALUES (?, 0, ?)`).run(run, t).lastInsertRowid,
  );
  const call = dispatchCall(ledger, {
    runId: run,
    tool: 'read_span',
    args: { tag },
    origin: 'model',
    owner: 'h:1:1',
    turnId: turn,
  });
  db.prepare(
    `INSERT INTO observations (run_id, turn_id, call_id, kind, result, trust, created_at) VALUES (?, ?, ?, 'tool', ?, 'trusted', ?)`,
  ).run(run, turn, call, JSON.stringify({ tag }), t);
  db.prepare(`INSERT OR IGNORE INTO prompt_parts (sha256, bytes, body) VALUES ('s', 4, x'00')`).run();
  return { ledger, run, call };
}

describe('mergeLedgerFile (real SQLite)', () => {
  it('imports a run with its turns, calls and observations, shifting integer ids and their references', () => {
    const d = dir();
    const target = ledgerWithRun(join(d, 'out.db'), 'local');
    const source = ledgerWithRun(join(d, 'job.db'), 'job');
    const bytes = source.ledger.database.serialize();
    source.ledger.close();

    expect(mergeLedgerFile(target.ledger, bytes)).toEqual({ runs: [source.run], already: false });
    const db = target.ledger.database;
    const turns = db.prepare(`SELECT id, run_id FROM turns ORDER BY id`).all() as Array<{
      id: number;
      run_id: string;
    }>;
    expect(turns.map((t) => t.run_id)).toEqual([target.run, source.run]);
    const call = getCall(target.ledger, source.call)!;
    expect(call.turn_id).toBe(turns[1]!.id);
    const obs = db
      .prepare(`SELECT turn_id, call_id, result FROM observations WHERE run_id = ?`)
      .get(source.run);
    expect(obs).toEqual({ turn_id: turns[1]!.id, call_id: source.call, result: '{"tag":"job"}' });
    expect(db.prepare(`SELECT COUNT(*) AS n FROM prompt_parts`).get()).toEqual({ n: 1 });
    expect(db.pragma('foreign_key_check')).toEqual([]);

    // The same result read twice (an `ab` that died after the merge): nothing is written again.
    expect(mergeLedgerFile(target.ledger, bytes)).toEqual({ runs: [source.run], already: true });
    expect(db.prepare(`SELECT COUNT(*) AS n FROM turns`).get()).toEqual({ n: 2 });
    target.ledger.close();
  });

  it('refuses a ledger of another schema, and leaves the target as it was', () => {
    const d = dir();
    const target = ledgerWithRun(join(d, 'out.db'), 'local');
    const source = ledgerWithRun(join(d, 'job.db'), 'job');
    source.ledger.database.pragma('user_version = 1');
    const bytes = source.ledger.database.serialize();
    source.ledger.close();
    expect(() => mergeLedgerFile(target.ledger, bytes)).toThrow(/schema 1/);
    expect(target.ledger.database.prepare(`SELECT COUNT(*) AS n FROM runs`).get()).toEqual({ n: 1 });
    target.ledger.close();
  });
});
