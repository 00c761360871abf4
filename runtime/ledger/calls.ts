// The calls and executions of the ledger (docs/ledger.md): a call is written `dispatched` before
// its container exists, gets its container id once there is one, and ends once — completed with the
// sandbox's receipt, or failed / not executed / denied with the reason. A call's status only moves
// forward (a trigger of migrations.ts refuses the rest); every write of one call is one transaction.
import { randomBytes } from 'node:crypto';
import { RuntimeError } from '../errors.js';
import type { Receipt } from '../sandbox/spec.js';
import type { CallOrigin, CallRow, CallStatus } from './call-row.js';
import type { ExecutionRow } from './execution-row.js';
import type { Ledger } from './ledger.js';

const now = () => new Date().toISOString();

/**
 * A fresh call id: `c-` and 12 random hex digits. Random rather than counted, so an id can be taken
 * before its row is written (the stream's proposal names it) without a gap or a race in any table.
 */
export function newCallId(): string {
  return `c-${randomBytes(6).toString('hex')}`;
}

/** What a call is recorded with, whoever asked for it. */
export interface NewCall {
  /** The id the caller took from newCallId() ahead of time; absent: a fresh one. */
  id?: string;
  runId: string;
  tool: string;
  args: unknown;
  origin: CallOrigin;
  owner: string;
  turnId?: number;
}

/**
 * Writes the call as dispatched: this row exists before any container does. `id` is one the
 * caller took from newCallId() ahead of time (the stream names a proposal's call before it runs).
 */
export function dispatchCall(ledger: Ledger, call: NewCall): string {
  const db = ledger.database;
  const id = call.id ?? newCallId();
  const t = now();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO calls (id, run_id, turn_id, origin, tool, args, verdict, status, owner, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'valid', 'validated', ?, ?, ?)`,
    ).run(
      id,
      call.runId,
      call.turnId ?? null,
      call.origin,
      call.tool,
      JSON.stringify(call.args),
      call.owner,
      t,
      t,
    );
    setStatus(ledger, id, 'dispatched', null);
  })();
  return id;
}

export function containerCreated(ledger: Ledger, callId: string, containerId: string): void {
  ledger.database
    .prepare(`UPDATE calls SET container_id = ?, updated_at = ? WHERE id = ?`)
    .run(containerId, now(), callId);
}

/** The receipt and the call's completion, in one transaction. */
export function completeCall(
  ledger: Ledger,
  callId: string,
  receipt: Receipt,
  envKey: string | null = null,
): void {
  const db = ledger.database;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO executions (call_id, image, image_digest, container_id, warm, limits, create_ms, start_ms,
             run_ms, total_ms, exit_code, timed_out, oom_killed, stdout, stderr, stdout_bytes, stderr_bytes,
             stdout_sha256, stderr_sha256, stdout_truncated, stderr_truncated, created_at, env_key, kill_reason)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...executionValues(callId, receipt, envKey));
    db.prepare(`UPDATE calls SET container_id = ? WHERE id = ?`).run(receipt.container_id, callId);
    setStatus(ledger, callId, 'completed', null);
  })();
}

/** The executions row's values, in the order of the INSERT above. */
function executionValues(callId: string, receipt: Receipt, envKey: string | null): unknown[] {
  return [
    callId,
    receipt.image,
    receipt.image_digest,
    receipt.container_id,
    Number(receipt.warm),
    JSON.stringify(receipt.limits),
    receipt.timings.create_ms,
    receipt.timings.start_ms,
    receipt.timings.run_ms,
    receipt.timings.total_ms,
    receipt.exit_code,
    Number(receipt.timed_out),
    Number(receipt.oom_killed),
    receipt.stdout,
    receipt.stderr,
    receipt.stdout_bytes,
    receipt.stderr_bytes,
    receipt.stdout_sha256,
    receipt.stderr_sha256,
    Number(receipt.stdout_truncated),
    Number(receipt.stderr_truncated),
    now(),
    envKey,
    receipt.kill_reason ?? null,
  ];
}

/** A call the harness ran without a container (read, search, edit): its result is the observation. */
export function markCompleted(ledger: Ledger, callId: string): void {
  ledger.database.transaction(() => setStatus(ledger, callId, 'completed', null))();
}

/** A proposal that failed validation: recorded with its reason, never executed. */
export function recordRejectedCall(ledger: Ledger, call: NewCall & { reason: string }): string {
  const id = call.id ?? newCallId();
  const t = now();
  ledger.database
    .prepare(
      `INSERT INTO calls (id, run_id, turn_id, origin, tool, args, verdict, reason, status, status_reason, owner, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'rejected', ?, 'not_executed', 'rejected by validation', ?, ?, ?)`,
    )
    .run(
      id,
      call.runId,
      call.turnId ?? null,
      call.origin,
      call.tool,
      JSON.stringify(call.args ?? null),
      call.reason,
      call.owner,
      t,
      t,
    );
  return id;
}

/**
 * Ends a call that did not complete: `failed` when it may have run, `not_executed` when it surely
 * did not, `denied` when the approval policy or the user refused it (it surely did not run).
 */
export function endCall(
  ledger: Ledger,
  callId: string,
  status: 'failed' | 'not_executed' | 'denied',
  reason: string,
): void {
  ledger.database.transaction(() => setStatus(ledger, callId, status, reason))();
}

export function getCall(ledger: Ledger, id: string): CallRow | undefined {
  return ledger.database.prepare(`SELECT * FROM calls WHERE id = ?`).get(id) as CallRow | undefined;
}

export function getExecution(ledger: Ledger, callId: string): ExecutionRow | undefined {
  return ledger.database.prepare(`SELECT * FROM executions WHERE call_id = ?`).get(callId) as
    ExecutionRow | undefined;
}

/** Calls still `dispatched` (or `validated`) and runs without an outcome, of any owner. */
export function unfinished(ledger: Ledger): { calls: CallRow[]; runs: Array<{ id: string; owner: string }> } {
  const db = ledger.database;
  const calls = db
    .prepare(`SELECT * FROM calls WHERE status IN ('validated', 'dispatched')`)
    .all() as CallRow[];
  const runs = db.prepare(`SELECT id, owner FROM runs WHERE outcome IS NULL`).all() as Array<{
    id: string;
    owner: string;
  }>;
  return { calls, runs };
}

function setStatus(ledger: Ledger, callId: string, status: CallStatus, reason: string | null): void {
  const result = ledger.database
    .prepare(`UPDATE calls SET status = ?, status_reason = ?, updated_at = ? WHERE id = ?`)
    .run(status, reason, now(), callId);
  if (result.changes !== 1) throw new RuntimeError('ledger_error', `no call ${callId} in the ledger`);
}
