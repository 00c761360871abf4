// The gate-ablation section of the A/B report (docs/policy.md, "Gate ablation"): for
// each ablated gate, the policy arm with that gate off (arm key `policy-no-<gate>`) measured by the
// same code as the real arms, its deltas against the full policy arm, and the rule's verdict — delete
// iff none of the five measures changes beyond noise. Built from the ledger rows alone, like the rest.
import { ablationVerdict, type AblationDelta } from './decision.js';
import { armMeasures, type ArmMeasures, type InstanceFacts } from './metrics.js';
import type { GateName } from './gates.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { readFinished } from './stored.js';
import type { Task } from './tasks.js';
import { gateVariant, notApplicable } from './variants.js';

type GateVerdict = 'delete' | 'keep' | 'keep_unmeasured' | 'not_applicable' | 'incomplete';

interface GateAblationEntry {
  gate: GateName;
  /** The ledger arm key its instances are stored under. */
  arm: string;
  /**
   * delete: no measure changed beyond noise; keep: at least one did; keep_unmeasured: none that was
   * measured did, but a measure is missing (call precision without --ablation), so the rule cannot
   * show "no change" and the gate stays; not_applicable / incomplete: nothing to compare.
   */
  verdict: GateVerdict;
  reason: string;
  measures: Omit<ArmMeasures, 'arm'> | null;
  deltas: AblationDelta[];
  /** Tasks without a finished instance of this variant. */
  missing: string[];
  instances: Array<{
    task: string;
    resolved: boolean;
    outcome: string;
    turns: number;
    tokens: number;
    cost_usd: number | null;
  }>;
}

export interface GateAblationReport {
  /** What every variant is compared with. */
  full: 'policy';
  rule: string;
  gates: GateAblationEntry[];
}

export interface GateReportInput {
  model: string;
  tasks: readonly Task[];
  digests: ReadonlyMap<string, string>;
  gates: readonly GateName[];
  embedConfigured: boolean;
  /** The full policy arm's measures, and whether every task has its instance. */
  full: ArmMeasures | undefined;
  fullComplete: boolean;
}

const ABLATION_RULE =
  'A gate is deleted iff its removal changes none of the five measures beyond noise: Δresolve = 0 AND |Δcost| ≤ 5% AND |Δtokens| ≤ 5% AND Δcall_precision = 0 AND Δselection_accuracy = 0 (docs/policy.md, "Gate ablation"). Each gate is removed alone, everything else held fixed; the two weakest a-priori cases first.';

export function buildGateAblation(ledger: Ledger, input: GateReportInput): GateAblationReport {
  return {
    full: 'policy',
    rule: ABLATION_RULE,
    gates: input.gates.map((gate) => gateEntry(ledger, input, gate)),
  };
}

function gateEntry(ledger: Ledger, input: GateReportInput, gate: GateName): GateAblationEntry {
  const { key } = gateVariant(gate);
  const base = { gate, arm: key, measures: null, deltas: [], missing: [], instances: [] };
  const inapplicable = notApplicable(gate, { embedConfigured: input.embedConfigured });
  if (inapplicable) return { ...base, verdict: 'not_applicable', reason: inapplicable };

  const facts: InstanceFacts[] = [];
  const missing: string[] = [];
  for (const task of input.tasks) {
    const found = readFinished(
      ledger,
      { model: input.model, arm: key, taskId: task.id },
      input.digests.get(task.id),
      task.gold_labels,
    );
    if (found) facts.push(found.facts);
    else missing.push(task.id);
  }
  const { arm: _policy, ...measures } = armMeasures('policy', facts);
  const instances = facts.map((f) => ({
    task: f.taskId,
    resolved: f.resolved,
    outcome: f.outcome,
    turns: f.turns,
    tokens: f.tokens,
    cost_usd: f.costUsd,
  }));
  const partial = { ...base, measures, missing, instances };
  if (missing.length > 0 || !input.full || !input.fullComplete) {
    const what =
      missing.length > 0
        ? `${missing.length} instance(s) of ${key} missing`
        : 'the full policy arm is incomplete';
    return {
      ...partial,
      verdict: 'incomplete',
      reason: `no verdict: ${what}; run the same command again to finish`,
    };
  }
  const verdict = ablationVerdict(gate, input.full, armMeasures('policy', facts));
  return {
    ...partial,
    deltas: verdict.deltas,
    verdict: verdict.delete === true ? 'delete' : verdict.delete === false ? 'keep' : 'keep_unmeasured',
    reason: verdict.reason,
  };
}
