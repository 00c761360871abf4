// The two ends of one instance's result (docs/scale.md): the job, on a node, reads its finished
// instance and its whole ledger (the run's turns, calls, observations, edits: the patch is its edit
// rows) from its own OUT and prints them as a result block; `ab` on the manager side checks the block
// names the instance it asked for, on the same task version, before anything is written.
import { z } from 'zod';
import { getAbInstance, type AbInstanceKey, type AbInstanceRow } from '../ab/instance-rows.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { decodeResultBlock, encodeResultBlock } from './result-block.js';

export const JOB_RESULT_SCHEMA = 'piper-agent/ab-job-result@1';

const jobResultSchema = z.object({
  schema: z.literal(JOB_RESULT_SCHEMA),
  model: z.string(),
  arm: z.string(),
  taskId: z.string(),
  taskDigest: z.string(),
  runId: z.string(),
  resolved: z.boolean(),
  details: z.record(z.string(), z.unknown()),
  /** The job's ledger, serialized (base64). */
  ledger: z.string(),
});

export type JobResult = z.infer<typeof jobResultSchema>;

/** The result block of the finished instance `key` in the ledger at `ledgerPath`; null when it did not finish. */
export function resultBlockOf(ledgerPath: string, key: AbInstanceKey): string | null {
  const ledger = Ledger.open(ledgerPath);
  try {
    const row = getAbInstance(ledger, key);
    if (!row) return null;
    const result: JobResult = {
      schema: JOB_RESULT_SCHEMA,
      model: row.model,
      arm: row.arm,
      taskId: row.taskId,
      taskDigest: row.taskDigest,
      runId: row.runId,
      resolved: row.resolved,
      details: row.details as Record<string, unknown>,
      ledger: ledger.database.serialize().toString('base64'),
    };
    return encodeResultBlock(result);
  } finally {
    ledger.close();
  }
}

type JobRead = { ok: true; result: JobResult } | { ok: false; reason: string };

/** The job's result from its logs, if it is the instance `key` was asked for on task version `digest`. */
export function readJobResult(log: string, key: AbInstanceKey, digest: string): JobRead {
  const block = decodeResultBlock(log);
  if (!block.ok) return block;
  const parsed = jobResultSchema.safeParse(block.value);
  if (!parsed.success)
    return { ok: false, reason: `the result block is not a job result: ${parsed.error.message}` };
  const r = parsed.data;
  if (r.model !== key.model || r.arm !== key.arm || r.taskId !== key.taskId)
    return {
      ok: false,
      reason: `the job returned ${r.arm}/${r.taskId} (${r.model}), not ${key.arm}/${key.taskId}`,
    };
  if (r.taskDigest !== digest)
    return { ok: false, reason: 'the job ran another version of the task (its digest differs)' };
  return { ok: true, result: r };
}

/** What the manager side stores: the row, with the node it ran on in its details. */
export function rowOf(result: JobResult, node: string): Omit<AbInstanceRow, 'ablation'> {
  return {
    model: result.model,
    arm: result.arm,
    taskId: result.taskId,
    taskDigest: result.taskDigest,
    runId: result.runId,
    resolved: result.resolved,
    details: { ...result.details, node },
  };
}
