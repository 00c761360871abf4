// The shape of what the runner keeps per finished instance in the ledger's ab_instances row
// (eval/ab/instance-rows.ts stores it as opaque JSON): the measures' facts, the judgement and
// the run's wall time; and the ablation, filled one suppressed call at a time.
import type { AblationEntry, InstanceFacts } from './metrics.js';
import { getAbInstance, type AbInstanceKey } from './instance-rows.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { Judgement } from './judge.js';

export interface StoredDetails {
  facts: Omit<InstanceFacts, 'ablation'>;
  judgement: Judgement;
  /** The loop's reason for its outcome. */
  reason: string;
  wallS: number;
  /** The Swarm node it ran on, when it ran as a job (`ab --cluster swarm`); absent for a local run. */
  node?: string;
}

export interface StoredAblation {
  /** How many executed model calls the instance has: the ablation is complete at this many entries. */
  calls: number;
  entries: AblationEntry[];
}

export function isComplete(ablation: StoredAblation | null): ablation is StoredAblation {
  return ablation !== null && ablation.entries.length >= ablation.calls;
}

export interface FinishedInstance {
  /** The measures' facts, with the ablation entries when they are complete. */
  facts: InstanceFacts;
  details: StoredDetails;
  /** The complete call ablation, or null. */
  ablation: StoredAblation | null;
}

/**
 * A finished instance of the current task version, or null (not run, or run on a changed task).
 * `goldLabels`: the task's labels now, scored in place of those stored with the run: labels are a
 * property of the task, so a corrected gold-label file re-scores finished runs without re-running them.
 */
export function readFinished(
  ledger: Ledger,
  key: AbInstanceKey,
  digest: string | undefined,
  goldLabels?: readonly string[],
): FinishedInstance | null {
  const row = getAbInstance(ledger, key);
  if (!row || row.taskDigest !== digest) return null;
  const details = row.details as StoredDetails;
  const stored = row.ablation as StoredAblation | null;
  // An unresolved instance needs no re-runs: none of its calls can flip it to unresolved.
  const ablation = isComplete(stored) ? stored.entries : row.resolved ? null : [];
  const facts = { ...details.facts, goldLabels: goldLabels ?? details.facts.goldLabels, ablation };
  return { facts, details, ablation: isComplete(stored) ? stored : null };
}
