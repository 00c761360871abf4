// The shape of report.json: what one instance and the whole A/B report hold. Apart from report.ts,
// which builds it from the ledger, so that report-md.ts renders the shape without the building.
import type { Decision } from './decision.js';
import type { GateAblationReport } from './gate-report.js';
import type { Arm, ArmMeasures } from './metrics.js';
import type { SymbolTriggerCount } from './symbol-triggers.js';

export const REPORT_SCHEMA = 'piper-agent/ab-report@1';

export interface InstanceReport {
  task: string;
  arm: Arm;
  underspecified: boolean;
  run_id: string;
  judge_run_id: string;
  resolved: boolean;
  outcome: string;
  reason: string;
  turns: number;
  tokens: number;
  cost_usd: number | null;
  decisions: readonly string[];
  gold_labels: readonly string[];
  triggered_first: readonly string[];
  selection: { correct: number; attempted: number };
  abstained: boolean;
  model_calls: string[];
  edits: number;
  fail_to_pass: { passed: number; total: number };
  pass_to_pass: { passed: number; total: number };
  /** Tests of the project's suite that passed before the fix and fail after (the product's gate); null: not judged. */
  suite_regressions: readonly string[] | null;
  restored_tests: string[];
  /** Each FAIL_TO_PASS and PASS_TO_PASS test's outcome in the runner's judgement. */
  tests: Record<string, string>;
  wall_s: number;
  /** The Swarm node the instance ran on (`ab --cluster swarm` only). */
  node?: string;
  /** The symbol trigger's searches in the run, and those that found nothing (symbol-triggers.ts). */
  symbol_triggers: SymbolTriggerCount;
  /** null: no complete ablation for this instance. */
  ablation: Array<{
    index: number;
    tool: string;
    run_id: string;
    resolved: boolean;
    necessary: boolean;
    diverged: boolean;
    suppressed_calls: number;
  }> | null;
}

export interface AbReport {
  schema: typeof REPORT_SCHEMA;
  bench: string;
  model: string;
  simulated: boolean;
  arms: Arm[];
  tasks: string[];
  max_turns: number;
  /**
   * A SWE-bench-format set only: its gold-label file (null: none) and the tasks whose labels came
   * from it, checked by hand; the other tasks' labels are derived from the gold patch.
   */
  gold_labels_from?: { file: string | null; tasks: string[] };
  /** Every task × arm has a finished instance. */
  complete: boolean;
  missing: Array<{ task: string; arm: Arm }>;
  measures: Partial<Record<Arm, ArmMeasures>>;
  /** policy (candidate) against current, when both arms ran and the sample is complete. */
  decision: Decision | null;
  decision_note: string | null;
  ablation: { measured: Partial<Record<Arm, boolean>>; reruns: number; necessary: number; diverged: number };
  /** Per arm: symbol trigger searches over its instances, and those with zero matches. */
  symbol_triggers: Partial<Record<Arm, { instances: number; fired: number; zero_matches: number }>>;
  instances: InstanceReport[];
  /** Instances of a SWE-bench-format set that failed validation: not run, never counted unresolved. */
  invalid: Array<{ instance: string; reason: string }>;
  /** Present only when gates were ablated (--gate-ablation): each gate's deltas and verdict. */
  ablation_gates?: GateAblationReport;
  /** `ab --cluster` only: each job that ended without a result, why, and its last output lines. */
  failed_jobs?: FailedJobReport[];
  notes: string[];
}

export interface FailedJobReport {
  task: string;
  arm: string;
  /** no such image, killed, engine error, node lost, timeout, or instance (its own failure). */
  reason: string;
  node: string;
  detail: string;
  tail: string[];
  /** The node failure a retry on another node followed, when there was one. */
  retried_after: string | null;
}
