// The A/B decision rule and the gate-ablation rule (docs/policy.md, "The decision rule" and "Gate
// ablation"), exactly:
//
//   the candidate wins iff
//     resolve_candidate   >  resolve_current                (strictly; ties do NOT adopt)
//     cost_candidate      <= 1.5 × cost_current              (worse cost is disqualifying)
//     tokens_candidate    <= 1.5 × tokens_current            (worse token spend is disqualifying)
//     precision_candidate >= precision_current − 0.03        (no precision regression)
//     selection_candidate >= selection_current − 0.03        (no selection regression)
//
//   a gate is deleted iff its removal changes none of the five measures beyond noise:
//     Δresolve = 0  AND  |Δcost| <= 5%  AND  |Δtokens| <= 5%  AND  Δprecision = 0  AND  Δselection = 0
//
// A measure that is null (not measured: call precision without --ablation, cost without a price)
// makes its clause NOT EVALUABLE. The rule adopts only on five clauses that hold, so an unevaluable
// clause never adopts: the verdict is `undecided` when every evaluable clause holds (it would adopt
// if the missing ones hold too), `not_adopted` as soon as one evaluable clause fails. The ablation
// rule likewise deletes a gate only when all five deltas are known to be within noise.
//
// Comparisons allow 1e-9 of floating-point slack, so a value at exactly a threshold (1.5 × cost,
// precision − 0.03) counts as at the threshold, as the rule's ≤ / ≥ mean; "strictly greater" still
// needs more than that slack.
import type { ArmMeasures, Measure } from './metrics.js';

const THRESHOLDS = {
  costFactor: 1.5,
  tokensFactor: 1.5,
  precisionDrop: 0.03,
  selectionDrop: 0.03,
  ablationRelative: 0.05,
} as const;
const EPS = 1e-9;
/** c ≤ b with relative slack (costs can be 1e-6 dollars, so an absolute slack would be too coarse). */
const atMost = (c: number, b: number) => c <= b + EPS * Math.abs(b) + 1e-15;

type ClauseName = 'resolve' | 'cost' | 'tokens' | 'call_precision' | 'selection_accuracy';

export interface Clause {
  name: ClauseName;
  /** The comparison as the rule writes it. */
  rule: string;
  candidate: number | null;
  current: number | null;
  /** The value the candidate is compared with (current, 1.5 × current, current − 0.03). */
  bound: number | null;
  /** true / false, or null when a measure is missing. */
  holds: boolean | null;
  /** Why the clause exists (the rule's parenthetical). */
  why: string;
  /** The clause's outcome in words. */
  detail: string;
}

type Verdict = 'adopt' | 'not_adopted' | 'undecided';

export interface Decision {
  candidate: string;
  current: string;
  adopt: boolean;
  verdict: Verdict;
  clauses: Clause[];
  /** One paragraph: the verdict and the clauses that decided it. */
  reason: string;
}

const fmt = (v: number | null) => (v === null ? 'n/a' : Number.isInteger(v) ? String(v) : v.toPrecision(4));

function clause(
  name: ClauseName,
  rule: string,
  why: string,
  cand: Measure,
  cur: Measure,
  bound: (c: number) => number,
  test: (c: number, b: number) => boolean,
): Clause {
  const c = cand.value;
  const k = cur.value;
  if (c === null || k === null) {
    const missing = [
      c === null ? `candidate: ${cand.note ?? 'not measured'}` : null,
      k === null ? `current: ${cur.note ?? 'not measured'}` : null,
    ]
      .filter(Boolean)
      .join('; ');
    return {
      name,
      rule,
      candidate: c,
      current: k,
      bound: null,
      holds: null,
      why,
      detail: `not evaluable (${missing})`,
    };
  }
  const b = bound(k);
  const holds = test(c, b);
  return {
    name,
    rule,
    candidate: c,
    current: k,
    bound: b,
    holds,
    why,
    detail: `${fmt(c)} vs ${fmt(b)}: ${holds ? 'holds' : 'fails'}`,
  };
}

export function decide(candidate: ArmMeasures, current: ArmMeasures): Decision {
  const clauses = clausesOf(candidate, current);
  const failed = clauses.filter((c) => c.holds === false);
  const unknown = clauses.filter((c) => c.holds === null);
  const verdict: Verdict = failed.length > 0 ? 'not_adopted' : unknown.length > 0 ? 'undecided' : 'adopt';
  return {
    candidate: candidate.arm,
    current: current.arm,
    adopt: verdict === 'adopt',
    verdict,
    clauses,
    reason: reasonOf(verdict, candidate.arm, current.arm, failed, unknown),
  };
}

/** The rule's five clauses, in its order. */
function clausesOf(candidate: ArmMeasures, current: ArmMeasures): Clause[] {
  return [
    clause(
      'resolve',
      'resolve_candidate > resolve_current',
      'strictly; ties do NOT adopt — a replacement has to resolve more instances than what it replaces',
      candidate.resolveRate,
      current.resolveRate,
      (k) => k,
      (c, b) => c - b > EPS,
    ),
    clause(
      'cost',
      'cost_candidate ≤ 1.5 × cost_current',
      'worse cost is disqualifying',
      candidate.costPerInstance,
      current.costPerInstance,
      (k) => THRESHOLDS.costFactor * k,
      atMost,
    ),
    clause(
      'tokens',
      'tokens_candidate ≤ 1.5 × tokens_current',
      'worse token spend is disqualifying',
      candidate.tokensPerInstance,
      current.tokensPerInstance,
      (k) => THRESHOLDS.tokensFactor * k,
      atMost,
    ),
    clause(
      'call_precision',
      'call_precision_candidate ≥ call_precision_current − 0.03',
      'no precision regression',
      candidate.callPrecision,
      current.callPrecision,
      (k) => k - THRESHOLDS.precisionDrop,
      (c, b) => c >= b - EPS,
    ),
    clause(
      'selection_accuracy',
      'selection_accuracy_candidate ≥ selection_accuracy_current − 0.03',
      'no selection regression',
      candidate.selectionAccuracy,
      current.selectionAccuracy,
      (k) => k - THRESHOLDS.selectionDrop,
      (c, b) => c >= b - EPS,
    ),
  ];
}

function reasonOf(
  verdict: Verdict,
  candidate: string,
  current: string,
  failed: Clause[],
  unknown: Clause[],
): string {
  const names = (list: Clause[]) => list.map((c) => c.name).join(', ');
  return verdict === 'adopt'
    ? `${candidate} is adopted: all five clauses hold against ${current}.`
    : verdict === 'not_adopted'
      ? `${candidate} is not adopted: ${failed.map((c) => `${c.name} fails (${c.detail}; ${c.why})`).join('; ')}.` +
        (unknown.length ? ` Not evaluable: ${names(unknown)}.` : '')
      : `${candidate} is not adopted yet: every evaluable clause holds, but ${names(unknown)} could not be evaluated (${unknown.map((c) => c.detail).join('; ')}); the rule adopts only on five clauses that hold.`;
}

export interface AblationDelta {
  measure: ClauseName;
  full: number | null;
  ablated: number | null;
  delta: number | null;
  /** Within noise by the ablation rule; null when a measure is missing. */
  withinNoise: boolean | null;
  rule: string;
}

export interface AblationVerdict {
  gate: string;
  /** true: the gate is deleted; false: kept; null: not decidable (a measure is missing) — kept. */
  delete: boolean | null;
  deltas: AblationDelta[];
  reason: string;
}

/** The ablation rule: `full` = everything on, `ablated` = the same with one gate removed. */
export function ablationVerdict(gate: string, full: ArmMeasures, ablated: ArmMeasures): AblationVerdict {
  const exact = (a: number, b: number) => Math.abs(a - b) <= EPS;
  const relative = (a: number, b: number) =>
    atMost(Math.abs(b - a), THRESHOLDS.ablationRelative * Math.abs(a));
  const delta = (
    measure: ClauseName,
    rule: string,
    f: Measure,
    a: Measure,
    ok: (f: number, a: number) => boolean,
  ): AblationDelta => {
    if (f.value === null || a.value === null)
      return { measure, full: f.value, ablated: a.value, delta: null, withinNoise: null, rule };
    return {
      measure,
      full: f.value,
      ablated: a.value,
      delta: a.value - f.value,
      withinNoise: ok(f.value, a.value),
      rule,
    };
  };
  const deltas = [
    delta('resolve', 'Δresolve = 0', full.resolveRate, ablated.resolveRate, exact),
    delta('cost', '|Δcost| ≤ 5%', full.costPerInstance, ablated.costPerInstance, relative),
    delta('tokens', '|Δtokens| ≤ 5%', full.tokensPerInstance, ablated.tokensPerInstance, relative),
    delta('call_precision', 'Δcall_precision = 0', full.callPrecision, ablated.callPrecision, exact),
    delta(
      'selection_accuracy',
      'Δselection_accuracy = 0',
      full.selectionAccuracy,
      ablated.selectionAccuracy,
      exact,
    ),
  ];
  const beyond = deltas.filter((d) => d.withinNoise === false);
  const unknown = deltas.filter((d) => d.withinNoise === null);
  const del = beyond.length > 0 ? false : unknown.length > 0 ? null : true;
  const reason =
    del === true
      ? `delete ${gate}: removing it changes none of the five measures beyond noise`
      : del === false
        ? `keep ${gate}: removing it changes ${beyond.map((d) => `${d.measure} (${d.rule} fails: Δ = ${fmt(d.delta)})`).join(', ')}`
        : `keep ${gate} for now: ${unknown.map((d) => d.measure).join(', ')} not measured, so "no change beyond noise" is not shown`;
  return { gate, delete: del, deltas, reason };
}
