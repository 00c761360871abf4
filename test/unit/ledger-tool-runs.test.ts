// Migration 6: `piper-agent tool` calls recorded before tool runs had their own kind were `fix`
// runs that nothing ended. A ledger written then is read as tool runs, ended, and real fix runs
// (with a model) keep their kind and outcome.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../runtime/ledger/migrations.js';

const TOOL_RUNS_MIGRATION = 6;

function ledgerBeforeToolRuns(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'piper-ledger-v5-')), 'ledger.db');
  const db = new Database(file);
  for (const sql of MIGRATIONS.slice(0, TOOL_RUNS_MIGRATION - 1)) db.exec(sql);
  db.pragma(`user_version = ${TOOL_RUNS_MIGRATION - 1}`);
  const insert = db.prepare(
    `INSERT INTO runs (id, kind, issue, repo, model, owner, outcome, outcome_reason, started_at)
     VALUES (?, 'fix', ?, '/r', ?, 'h:1:1', ?, ?, '2026-01-01T00:00:00.000Z')`,
  );
  insert.run('r-tool-open', 'piper-agent tool read_entity', null, null, null);
  insert.run('r-tool-swept', 'piper-agent tool run_test', null, 'interrupted', 'the process running it died');
  insert.run('r-fix', 'piper-agent tool is broken', 'script:x.jsonl', 'stopped', 'capped');
  db.close();
  return file;
}

describe('ledger migration: tool runs', () => {
  it('reclassifies and ends the tool calls recorded as fix runs; leaves fix runs alone', () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(TOOL_RUNS_MIGRATION);
    const ledger = Ledger.open(ledgerBeforeToolRuns());
    try {
      const rows = ledger.database
        .prepare('SELECT id, kind, outcome, ended_at FROM runs ORDER BY id')
        .all() as Array<{ id: string; kind: string; outcome: string | null; ended_at: string | null }>;
      expect(rows).toEqual([
        { id: 'r-fix', kind: 'fix', outcome: 'stopped', ended_at: null },
        { id: 'r-tool-open', kind: 'tool', outcome: 'ended', ended_at: '2026-01-01T00:00:00.000Z' },
        { id: 'r-tool-swept', kind: 'tool', outcome: 'ended', ended_at: '2026-01-01T00:00:00.000Z' },
      ]);
    } finally {
      ledger.close();
    }
  });
});
