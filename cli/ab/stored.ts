// The shape of what the runner keeps per finished instance in the ledger's ab_instances row
// (runtime/ledger/ab-instances.ts stores it as opaque JSON): the measures' facts, the judgement and
// the run's wall time; and the ablation, filled one suppressed call at a time.
import type { AblationEntry, InstanceFacts } from '../../policy/ab/metrics.js';
import type { Judgement } from './judge.js';

export interface StoredDetails {
  facts: Omit<InstanceFacts, 'ablation'>;
  judgement: Judgement;
  /** The loop's reason for its outcome. */
  reason: string;
  wallS: number;
}

export interface StoredAblation {
  /** How many executed model calls the instance has: the ablation is complete at this many entries. */
  calls: number;
  entries: AblationEntry[];
}

export function isComplete(ablation: StoredAblation | null): ablation is StoredAblation {
  return ablation !== null && ablation.entries.length >= ablation.calls;
}
