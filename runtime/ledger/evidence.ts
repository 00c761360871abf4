// Evidence: which selectors a run's reads and searches returned. The edit gate allows an edit of a
// selector only when the run has seen it (docs/policy.md, "Validation and the
// rejection strings"), so these rows are what it consults.
import { RuntimeError } from '../errors.js';
import type { Ledger } from './ledger.js';

export interface EvidenceRecord {
  runId: string;
  /** The read/search call that cited the selectors, when the caller has one in the ledger. */
  callId?: string | null;
  selectors: string[];
}

/** Writes one row per distinct selector of the record, in one transaction. */
export function recordEvidence(ledger: Ledger, record: EvidenceRecord): void {
  const selectors = [...new Set(record.selectors)];
  if (selectors.length === 0) return;
  try {
    const insert = ledger.database.prepare(
      `INSERT INTO evidence (run_id, call_id, selector, created_at) VALUES (?, ?, ?, ?)`,
    );
    const at = new Date().toISOString();
    ledger.database.transaction(() => {
      for (const s of selectors) insert.run(record.runId, record.callId ?? null, s, at);
    })();
  } catch (error) {
    throw new RuntimeError(
      'ledger_error',
      `cannot record evidence for run ${record.runId}: ${(error as Error).message}`,
      'evidence needs a run (and call, when given) that exists in the ledger',
      { cause: error },
    );
  }
}

export function hasEvidence(ledger: Ledger, runId: string, selector: string): boolean {
  return (
    ledger.database
      .prepare(`SELECT 1 FROM evidence WHERE run_id = ? AND selector = ? LIMIT 1`)
      .get(runId, selector) !== undefined
  );
}

/** The distinct selectors a run has cited, in the order they were first cited. */
export function evidenceFor(ledger: Ledger, runId: string): string[] {
  const rows = ledger.database
    .prepare(
      `SELECT selector, MIN(id) AS first FROM evidence WHERE run_id = ? GROUP BY selector ORDER BY first`,
    )
    .all(runId) as Array<{ selector: string }>;
  return rows.map((r) => r.selector);
}
