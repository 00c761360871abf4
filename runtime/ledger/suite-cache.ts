// The regression gate's base runs, found again: a finished run whose config carries the
// gate's key (the base snapshot's content, the environment, the command and its budget) already
// answered what the suite says on that base, so a second fix on the same tree reuses it. No table
// of its own: the runs, calls and executions rows the base run wrote are the cache, so what is
// reused is exactly what ran, and `ledger show` shows it.
import type { Ledger } from './ledger.js';

export interface CachedSuiteRun {
  runId: string;
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out: boolean;
}

/**
 * The newest base run under KEY that ran to its end (passed, failed, or killed by its budget).
 * Newest by when it was written (`started_at`), the rowid only between runs of the same moment: a
 * rowid is whatever the row was inserted with. A run stamped later than now was not written by
 * this clock, and is not reused.
 */
export function cachedBaseRun(ledger: Ledger, key: string, now = new Date()): CachedSuiteRun | undefined {
  const row = ledger.database
    .prepare(
      `SELECT r.id AS runId, e.stdout, e.stderr, e.exit_code, e.timed_out
         FROM runs r JOIN calls c ON c.run_id = r.id JOIN executions e ON e.call_id = c.id
        WHERE r.outcome IN ('passed', 'failed', 'timed_out')
          AND json_extract(r.config, '$.suite.side') = 'base'
          AND json_extract(r.config, '$.suite.key') = ?
          AND r.started_at <= ?
        ORDER BY r.started_at DESC, r.rowid DESC, c.created_at DESC, c.rowid DESC LIMIT 1`,
    )
    .get(key, now.toISOString()) as (Omit<CachedSuiteRun, 'timed_out'> & { timed_out: number }) | undefined;
  return row ? { ...row, timed_out: row.timed_out !== 0 } : undefined;
}

/** The container a call runs in, once the sandbox has made it (null before). */
export function callContainer(ledger: Ledger, callId: string): string | null {
  const row = ledger.database.prepare(`SELECT container_id FROM calls WHERE id = ?`).get(callId) as
    { container_id: string | null } | undefined;
  return row?.container_id ?? null;
}

/** The run's result as the gate judged it: its outcome and the suite report in its config. */
export function recordSuiteVerdict(
  ledger: Ledger,
  runId: string,
  verdict: { outcome: string; reason: string; suite: unknown },
): void {
  ledger.database
    .prepare(
      `UPDATE runs SET outcome = ?, outcome_reason = ?,
              config = json_set(coalesce(config, '{}'), '$.suite', json(?)) WHERE id = ?`,
    )
    .run(verdict.outcome, verdict.reason, JSON.stringify(verdict.suite), runId);
}

/** A base run the gate stopped (its fix ended first) says so, and is never reused as the base. */
export function markAbandoned(ledger: Ledger, callId: string): void {
  ledger.database
    .prepare(
      `UPDATE runs SET outcome = 'abandoned', outcome_reason = 'the fix run ended before it',
              ended_at = coalesce(ended_at, ?) WHERE id = (SELECT run_id FROM calls WHERE id = ?)`,
    )
    .run(new Date().toISOString(), callId);
}

/** The fix run's gate key, kept in its config so a resumed run finds its base run again. */
export function recordSuiteKey(ledger: Ledger, runId: string, key: string): void {
  ledger.database
    .prepare(`UPDATE runs SET config = json_set(coalesce(config, '{}'), '$.suite_key', ?) WHERE id = ?`)
    .run(key, runId);
}
