// The A/B protocol's measures (docs/policy.md, "The A/B protocol"), per arm, from the facts the
// runner recorded for each instance. Pure: no ledger, no clock. Every measure is a number or null,
// and null always comes with the reason it could not be measured — never a silent 0.
//
//   resolve rate          resolved / total (resolved = the runner's judgement: FAIL_TO_PASS and
//                         PASS_TO_PASS all pass in the sandbox after the run, not the agent's claim)
//   cost / instance       model spend summed over the arm's instances / total; null when any
//                         instance's cost is unknown (a model without a price)
//   tokens / instance     prompt + completion tokens summed / total
//   call precision        necessary_calls / total_calls. total_calls = every executed model call of
//                         every instance (rejected proposals and trigger calls are not model calls
//                         that ran). A call is necessary iff re-running the instance with that call
//                         suppressed flips it from resolved to unresolved — so a call of an unresolved
//                         instance is never necessary, and only resolved instances need re-runs.
//                         null unless every resolved instance has its ablation (--ablation).
//   selection accuracy    correct / attempted against the gold labels: for each instance, the first
//                         m decision points (m = its number of gold labels) are compared position by
//                         position; a decision point is one parsed model proposal, in turn order
//                         (re-selections after a rejection included; unparsable no-op turns are not).
//                         An instance with fewer than m proposals attempts only the ones it made.
//                         Alignment (eval/tasks/piperbench/README.md): when a trigger already made the
//                         first labelled call before the model's first decision (the policy arm's
//                         symbol trigger runs search_symbol on the issue) and the model did not
//                         repeat it, that label is done, not missed: it is dropped, and the
//                         remaining labels are compared with the model's decisions.
//   correct abstention    underspecified instances where the arm asked (any ask_user proposal) or
//                         stopped without committing an edit, over underspecified instances.

import { fixesWithRegressions } from './regression-measure.js';

export type Arm = 'policy' | 'current';

/** One suppressed call of an ablation re-run and what the runner judged afterwards. */
export interface AblationEntry {
  /** 0-based position among the instance's executed model calls. */
  index: number;
  tool: string;
  /** The re-run (its own run in the ledger). */
  runId: string;
  resolved: boolean;
  /** The re-run's call at `index` was not the original's (a non-deterministic model): not comparable. */
  diverged: boolean;
  /** Model calls suppressed in the re-run: the call itself and any identical repeat of it. */
  suppressedCalls: number;
}

/** What the runner knows of one instance (one arm on one task), all of it read from the ledger. */
export interface InstanceFacts {
  arm: Arm;
  taskId: string;
  underspecified: boolean;
  goldLabels: readonly string[];
  runId: string;
  resolved: boolean;
  /** The loop's outcome (resolved, ask_user, stop, cap, error). */
  outcome: string;
  tokens: number;
  costUsd: number | null;
  turns: number;
  /** Tool names (or ask_user / stop) of the parsed proposals, in turn order. */
  decisions: readonly string[];
  /** Tools run by triggers on the issue, before the model's first decision. */
  triggeredFirst: readonly string[];
  /** The executed model calls, in order: what an ablation suppresses one at a time. */
  modelCalls: ReadonlyArray<{ callId: string; tool: string }>;
  /** Committed edits of the run. */
  edits: number;
  /** null: no ablation was run for this instance. */
  ablation: readonly AblationEntry[] | null;
  /** The project-suite regressions the fix's gate named; null or absent: the gate did not judge it. */
  suiteRegressions?: readonly string[] | null;
}

/** A measure: its value, or null and why. */
export interface Measure {
  value: number | null;
  /** numerator / denominator where the measure is a ratio, for the report. */
  of?: { numerator: number; denominator: number };
  note?: string;
}

export interface ArmMeasures {
  arm: Arm;
  instances: number;
  resolveRate: Measure;
  costPerInstance: Measure;
  tokensPerInstance: Measure;
  callPrecision: Measure;
  selectionAccuracy: Measure;
  correctAbstention: Measure;
  /** Instances whose repro passed and whose project suite lost a passing test, over those judged. */
  fixesWithRegressions: Measure;
}

function ratio(numerator: number, denominator: number, none: string): Measure {
  return denominator === 0
    ? { value: null, of: { numerator, denominator }, note: none }
    : { value: numerator / denominator, of: { numerator, denominator } };
}

/** Correct and attempted selections of one instance against its gold labels (aligned, see above). */
export function selectionScore(
  decisions: readonly string[],
  labels: readonly string[],
  triggeredFirst: readonly string[] = [],
): { correct: number; attempted: number } {
  const first = labels[0];
  const goldLabels =
    first !== undefined && triggeredFirst.includes(first) && decisions[0] !== first
      ? labels.slice(1)
      : labels;
  const attempted = Math.min(decisions.length, goldLabels.length);
  let correct = 0;
  for (let i = 0; i < attempted; i++) if (decisions[i] === goldLabels[i]) correct++;
  return { correct, attempted };
}

/** Whether an instance abstained: asked the operator, or stopped without committing an edit. */
export function abstained(facts: Pick<InstanceFacts, 'decisions' | 'outcome' | 'edits'>): boolean {
  return facts.decisions.includes('ask_user') || (facts.outcome === 'stop' && facts.edits === 0);
}

/** Necessary calls of one instance: suppressed calls whose re-run was no longer resolved. */
function necessaryCalls(facts: Pick<InstanceFacts, 'resolved' | 'ablation'>): number {
  if (!facts.resolved || !facts.ablation) return 0;
  return facts.ablation.filter((entry) => !entry.diverged && !entry.resolved).length;
}

export function armMeasures(arm: Arm, all: readonly InstanceFacts[]): ArmMeasures {
  const items = all.filter((f) => f.arm === arm);
  const n = items.length;
  const resolved = items.filter((f) => f.resolved).length;

  const costs = items.map((f) => f.costUsd);
  const costPerInstance: Measure =
    n === 0
      ? { value: null, note: 'no instances' }
      : costs.some((c) => c === null)
        ? {
            value: null,
            note: `cost unknown for ${costs.filter((c) => c === null).length} instance(s): the model has no price`,
          }
        : { value: costs.reduce<number>((s, c) => s + (c ?? 0), 0) / n };
  const tokens = items.reduce((s, f) => s + f.tokens, 0);

  return {
    arm,
    instances: n,
    resolveRate: ratio(resolved, n, 'no instances'),
    costPerInstance,
    tokensPerInstance: n === 0 ? { value: null, note: 'no instances' } : { value: tokens / n },
    callPrecision: callPrecision(items),
    selectionAccuracy: selectionAccuracy(items),
    correctAbstention: correctAbstention(items),
    fixesWithRegressions: fixesWithRegressions(items),
  };
}

function callPrecision(items: readonly InstanceFacts[]): Measure {
  const total = items.reduce((s, f) => s + f.modelCalls.length, 0);
  const missing = items.filter((f) => f.resolved && f.ablation === null).length;
  if (missing > 0) {
    return {
      value: null,
      note: `not measured: ${missing} resolved instance(s) have no ablation (run with --ablation)`,
    };
  }
  const diverged = items.reduce((s, f) => s + (f.ablation ?? []).filter((e) => e.diverged).length, 0);
  const necessary = items.reduce((s, f) => s + necessaryCalls(f), 0);
  const measure = ratio(necessary, total, 'no executed model calls');
  return diverged > 0
    ? {
        ...measure,
        note: `${diverged} ablation re-run(s) diverged before the suppressed call and count as not necessary`,
      }
    : measure;
}

function selectionAccuracy(items: readonly InstanceFacts[]): Measure {
  let correct = 0;
  let attempted = 0;
  for (const f of items) {
    const score = selectionScore(f.decisions, f.goldLabels, f.triggeredFirst);
    correct += score.correct;
    attempted += score.attempted;
  }
  return ratio(correct, attempted, 'no decision point to score (no gold labels, or no parsed proposal)');
}

function correctAbstention(items: readonly InstanceFacts[]): Measure {
  const under = items.filter((f) => f.underspecified);
  return ratio(under.filter(abstained).length, under.length, 'no underspecified instance in the sample');
}
