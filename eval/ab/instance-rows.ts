// The A/B runner's finished instances (migration 3; docs/ledger.md, "ab_instances"): one row per
// model × arm × task, written only after the runner has judged the run, so a row means "done, do not
// run again". The JSON columns are opaque here: the runner owns their shape; this module only stores
// and returns them. The table's migration lives with the ledger's other tables; the runner is in eval/ab/.
import { RuntimeError } from '../../runtime/errors.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';

export interface AbInstanceKey {
  model: string;
  arm: string;
  taskId: string;
}

export interface AbInstanceRow extends AbInstanceKey {
  taskDigest: string;
  runId: string;
  resolved: boolean;
  details: unknown;
  /** null until an ablation has been run for this instance. */
  ablation: unknown;
}

interface StoredRow {
  model: string;
  arm: string;
  task_id: string;
  task_digest: string;
  run_id: string;
  resolved: number;
  details: string;
  ablation: string | null;
}

const now = () => new Date().toISOString();

/** The finished instance, or undefined. */
export function getAbInstance(ledger: Ledger, key: AbInstanceKey): AbInstanceRow | undefined {
  const row = ledger.database
    .prepare(`SELECT * FROM ab_instances WHERE model = ? AND arm = ? AND task_id = ?`)
    .get(key.model, key.arm, key.taskId) as StoredRow | undefined;
  return row ? fromStored(row) : undefined;
}

/** Writes (or replaces, e.g. after the task changed) a judged instance; its ablation starts empty. */
export function putAbInstance(ledger: Ledger, row: Omit<AbInstanceRow, 'ablation'>): void {
  try {
    const t = now();
    ledger.database
      .prepare(
        `INSERT OR REPLACE INTO ab_instances
           (model, arm, task_id, task_digest, run_id, resolved, details, ablation, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
      )
      .run(
        row.model,
        row.arm,
        row.taskId,
        row.taskDigest,
        row.runId,
        Number(row.resolved),
        JSON.stringify(row.details),
        t,
        t,
      );
  } catch (error) {
    throw new RuntimeError(
      'ledger_error',
      `cannot record the A/B instance ${row.arm}/${row.taskId}: ${(error as Error).message}`,
      'the run it names must exist in the same ledger',
      { cause: error },
    );
  }
}

/** Replaces the instance's ablation data (called after each suppressed call, so progress survives). */
export function setAbAblation(ledger: Ledger, key: AbInstanceKey, ablation: unknown): void {
  const result = ledger.database
    .prepare(
      `UPDATE ab_instances SET ablation = ?, updated_at = ? WHERE model = ? AND arm = ? AND task_id = ?`,
    )
    .run(JSON.stringify(ablation), now(), key.model, key.arm, key.taskId);
  if (result.changes !== 1) {
    throw new RuntimeError(
      'ledger_error',
      `no A/B instance ${key.arm}/${key.taskId} for model ${key.model} in the ledger`,
    );
  }
}

function fromStored(row: StoredRow): AbInstanceRow {
  return {
    model: row.model,
    arm: row.arm,
    taskId: row.task_id,
    taskDigest: row.task_digest,
    runId: row.run_id,
    resolved: row.resolved === 1,
    details: JSON.parse(row.details) as unknown,
    ablation: row.ablation === null ? null : (JSON.parse(row.ablation) as unknown),
  };
}
