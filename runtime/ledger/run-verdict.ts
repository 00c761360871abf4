// A run's verdict after its loop ended, as a judge that came after the loop wrote it: the outcome
// and reason on the run's row, and what the judge found under one key of the run's config (the
// as-written repro run's `tests_edited`), so `ledger show` and `resume` read what the result said.
import type { Ledger } from './ledger.js';

export function recordRunVerdict(
  ledger: Ledger,
  runId: string,
  verdict: { outcome: string; reason: string; key: string; found: unknown },
): void {
  ledger.database
    .prepare(
      `UPDATE runs SET outcome = ?, outcome_reason = ?,
              config = json_set(coalesce(config, '{}'), '$.' || ?, json(?)) WHERE id = ?`,
    )
    .run(verdict.outcome, verdict.reason, verdict.key, JSON.stringify(verdict.found), runId);
}
