// The approvals of a run (docs/approval.md): one row per decision on an effect on the host (today
// an edit), approved or denied, with its subject (the run), operation, target, scope and who
// decided, linked to the call. Statements over the `approvals` table of migrations.ts.
import type { Ledger } from './ledger.js';

type ApprovalScope = 'once' | 'file';
type ApprovalDecider = 'user' | 'policy:auto' | 'policy:read-only';

export interface NewApproval {
  runId: string;
  callId: string;
  operation: string;
  path: string;
  selector: string;
  decision: 'approved' | 'denied';
  scope: ApprovalScope;
  decidedBy: ApprovalDecider;
  /** The earlier file-scoped approval this decision reuses, if any. */
  basis?: number;
  reason?: string;
  diffSha256: string;
}

export interface ApprovalRow {
  id: number;
  run_id: string;
  call_id: string;
  operation: string;
  path: string;
  selector: string;
  decision: 'approved' | 'denied';
  scope: ApprovalScope;
  decided_by: ApprovalDecider;
  basis: number | null;
  reason: string | null;
  diff_sha256: string;
  created_at: string;
}

/** Records one decision; returns its id. */
export function recordApproval(ledger: Ledger, a: NewApproval): number {
  const result = ledger.database
    .prepare(
      `INSERT INTO approvals (run_id, call_id, operation, path, selector, decision, scope, decided_by,
         basis, reason, diff_sha256, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      a.runId,
      a.callId,
      a.operation,
      a.path,
      a.selector,
      a.decision,
      a.scope,
      a.decidedBy,
      a.basis ?? null,
      a.reason ?? null,
      a.diffSha256,
      new Date().toISOString(),
    );
  return Number(result.lastInsertRowid);
}

/** Every decision of a run, oldest first. */
export function approvalsForRun(ledger: Ledger, runId: string): ApprovalRow[] {
  return ledger.database
    .prepare(`SELECT * FROM approvals WHERE run_id = ? ORDER BY id`)
    .all(runId) as ApprovalRow[];
}
