// The A/B measures on hand-computed fixtures, and the edges of the spec's decision rule and
// ablation rule (docs/policy.md, "Gate ablation").
import { describe, expect, it } from 'vitest';
import { ablationVerdict, decide } from '../../eval/ab/decision.js';
import {
  abstained,
  armMeasures,
  selectionScore,
  type ArmMeasures,
  type InstanceFacts,
  type Measure,
} from '../../eval/ab/metrics.js';

function facts(over: Partial<InstanceFacts>): InstanceFacts {
  return {
    arm: 'policy',
    taskId: 't',
    underspecified: false,
    goldLabels: ['search_symbol', 'read_entity', 'edit_entity'],
    runId: 'r',
    resolved: false,
    outcome: 'stop',
    tokens: 0,
    costUsd: 0,
    turns: 0,
    decisions: [],
    triggeredFirst: [],
    modelCalls: [],
    edits: 0,
    ablation: null,
    ...over,
  };
}

const calls = (...tools: string[]) => tools.map((tool, i) => ({ callId: `c${i}`, tool }));

// Four policy instances, every number chosen so the expected measures can be checked by hand.
const SAMPLE: InstanceFacts[] = [
  // a: resolved, 3 calls, ablation: suppressing call 1 (the edit) flips it → 1 necessary call.
  facts({
    taskId: 'a',
    resolved: true,
    outcome: 'resolved',
    tokens: 1000,
    costUsd: 0.001,
    decisions: ['search_symbol', 'read_entity', 'edit_entity', 'run_test', 'stop'],
    modelCalls: calls('read_entity', 'edit_entity', 'run_test'),
    edits: 1,
    ablation: [
      { index: 0, tool: 'read_entity', runId: 'a0', resolved: true, diverged: false, suppressedCalls: 1 },
      { index: 1, tool: 'edit_entity', runId: 'a1', resolved: false, diverged: false, suppressedCalls: 1 },
      { index: 2, tool: 'run_test', runId: 'a2', resolved: true, diverged: false, suppressedCalls: 1 },
    ],
  }),
  // b: resolved, 2 calls, both necessary; its decisions are 1 of 3 right.
  facts({
    taskId: 'b',
    resolved: true,
    outcome: 'resolved',
    tokens: 3000,
    costUsd: 0.003,
    decisions: ['edit_entity', 'read_entity', 'read_entity'],
    modelCalls: calls('read_entity', 'edit_entity'),
    edits: 1,
    ablation: [
      { index: 0, tool: 'read_entity', runId: 'b0', resolved: false, diverged: false, suppressedCalls: 1 },
      { index: 1, tool: 'edit_entity', runId: 'b1', resolved: false, diverged: false, suppressedCalls: 1 },
    ],
  }),
  // c: underspecified, asked first: abstained; 1 decision scored against ['ask_user'].
  facts({
    taskId: 'c',
    underspecified: true,
    goldLabels: ['ask_user'],
    outcome: 'ask_user',
    tokens: 500,
    costUsd: 0.0005,
    decisions: ['ask_user'],
    ablation: [],
  }),
  // d: underspecified, edited and stopped: did not abstain; 2 executed calls, unresolved (never necessary).
  facts({
    taskId: 'd',
    underspecified: true,
    goldLabels: ['ask_user'],
    outcome: 'stop',
    tokens: 1500,
    costUsd: 0.0015,
    decisions: ['read_entity', 'edit_entity', 'stop'],
    modelCalls: calls('read_entity', 'edit_entity'),
    edits: 1,
    ablation: [],
  }),
];

describe('A/B measures (hand-computed)', () => {
  const m = armMeasures('policy', SAMPLE);

  it('resolve rate = resolved / total', () => {
    expect(m.resolveRate).toEqual({ value: 0.5, of: { numerator: 2, denominator: 4 } });
  });

  it('cost and tokens per instance are sums over the total', () => {
    expect(m.costPerInstance.value).toBeCloseTo((0.001 + 0.003 + 0.0005 + 0.0015) / 4, 12);
    expect(m.tokensPerInstance.value).toBe((1000 + 3000 + 500 + 1500) / 4);
  });

  it('call precision = necessary / every executed model call (unresolved instances count, never necessary)', () => {
    // necessary: a → 1, b → 2; total calls: 3 + 2 + 0 + 2 = 7
    expect(m.callPrecision).toEqual({ value: 3 / 7, of: { numerator: 3, denominator: 7 } });
  });

  it('selection accuracy = correct / attempted over the first m decision points', () => {
    // a: 3/3; b: edit≠search, read=read, read≠edit → 1/3; c: 1/1; d: read≠ask → 0/1
    expect(m.selectionAccuracy).toEqual({ value: 5 / 8, of: { numerator: 5, denominator: 8 } });
  });

  it('correct abstention = underspecified that asked or stopped without editing / underspecified', () => {
    expect(m.correctAbstention).toEqual({ value: 0.5, of: { numerator: 1, denominator: 2 } });
    expect(abstained({ decisions: ['read_entity', 'stop'], outcome: 'stop', edits: 0 })).toBe(true);
    expect(
      abstained({ decisions: ['edit_entity', 'run_test', 'ask_user'], outcome: 'ask_user', edits: 1 }),
    ).toBe(true);
    expect(abstained({ decisions: ['edit_entity', 'stop'], outcome: 'stop', edits: 1 })).toBe(false);
  });

  it('an arm counts only its own instances', () => {
    expect(armMeasures('current', SAMPLE).instances).toBe(0);
    expect(armMeasures('current', SAMPLE).resolveRate.value).toBeNull();
  });

  it('call precision is not measured when a resolved instance has no ablation', () => {
    const partial = armMeasures('policy', [SAMPLE[0]!, { ...SAMPLE[1]!, ablation: null }]);
    expect(partial.callPrecision.value).toBeNull();
    expect(partial.callPrecision.note).toMatch(/1 resolved instance\(s\) have no ablation/);
  });

  it('a diverged re-run is not counted as necessary', () => {
    const diverged = facts({
      resolved: true,
      modelCalls: calls('edit_entity'),
      ablation: [
        { index: 0, tool: 'edit_entity', runId: 'x', resolved: false, diverged: true, suppressedCalls: 1 },
      ],
    });
    expect(armMeasures('policy', [diverged]).callPrecision.value).toBe(0);
  });

  it('an unknown cost makes cost per instance unknown, never zero', () => {
    const priced = armMeasures('policy', [facts({ costUsd: 0.01 }), facts({ costUsd: null })]);
    expect(priced.costPerInstance.value).toBeNull();
    expect(priced.costPerInstance.note).toMatch(/unknown for 1 instance/);
  });

  it('selection alignment: a leading label a trigger already did is dropped, not missed', () => {
    const gold = ['search_symbol', 'read_entity', 'edit_entity'];
    expect(selectionScore(['read_entity', 'edit_entity', 'run_test'], gold, ['search_symbol'])).toEqual({
      correct: 2,
      attempted: 2,
    });
    expect(selectionScore(['read_entity', 'edit_entity', 'run_test'], gold, [])).toEqual({
      correct: 0,
      attempted: 3,
    });
    // The model repeated the trigger's call: scored as usual.
    expect(selectionScore(['search_symbol', 'read_entity'], gold, ['search_symbol'])).toEqual({
      correct: 2,
      attempted: 2,
    });
  });
});

function arm(
  arm: 'policy' | 'current',
  v: { resolve: number; cost: number | null; tokens: number; precision: number | null; selection: number },
): ArmMeasures {
  const m = (value: number | null): Measure =>
    value === null ? { value: null, note: 'not measured' } : { value };
  return {
    arm,
    instances: 20,
    resolveRate: m(v.resolve),
    costPerInstance: m(v.cost),
    tokensPerInstance: m(v.tokens),
    callPrecision: m(v.precision),
    selectionAccuracy: m(v.selection),
    correctAbstention: m(null),
    fixesWithRegressions: m(null),
  };
}

const CURRENT = { resolve: 0.5, cost: 0.002, tokens: 4000, precision: 0.8, selection: 0.7 };
const WINNER = { resolve: 0.55, cost: 0.002, tokens: 4000, precision: 0.8, selection: 0.7 };

describe('decision rule edges', () => {
  const verdict = (cand: Partial<typeof WINNER>) =>
    decide(arm('policy', { ...WINNER, ...cand }), arm('current', CURRENT));
  const holds = (cand: Partial<typeof WINNER>, name: string) =>
    verdict(cand).clauses.find((c) => c.name === name)!.holds;

  it('adopts when all five clauses hold', () => {
    const d = verdict({});
    expect(d).toMatchObject({ adopt: true, verdict: 'adopt' });
    expect(d.clauses.map((c) => c.holds)).toEqual([true, true, true, true, true]);
  });

  it('equal resolve does not adopt (ties do NOT adopt)', () => {
    const d = verdict({ resolve: 0.5 });
    expect(d).toMatchObject({ adopt: false, verdict: 'not_adopted' });
    expect(d.reason).toMatch(/resolve fails.*ties do NOT adopt/);
  });

  it('cost at exactly 1.5 × is allowed, above is not', () => {
    expect(holds({ cost: 0.003 }, 'cost')).toBe(true);
    expect(verdict({ cost: 0.003 }).adopt).toBe(true);
    expect(holds({ cost: 0.0030001 }, 'cost')).toBe(false);
    expect(verdict({ cost: 0.0030001 }).adopt).toBe(false);
  });

  it('tokens at exactly 1.5 × are allowed, above are not', () => {
    expect(holds({ tokens: 6000 }, 'tokens')).toBe(true);
    expect(holds({ tokens: 6000.5 }, 'tokens')).toBe(false);
  });

  it('precision at current − 0.03 is allowed, below is not', () => {
    expect(holds({ precision: 0.8 - 0.03 }, 'call_precision')).toBe(true);
    expect(holds({ precision: 0.77 }, 'call_precision')).toBe(true);
    expect(holds({ precision: 0.7699 }, 'call_precision')).toBe(false);
    expect(verdict({ precision: 0.7699 }).verdict).toBe('not_adopted');
  });

  it('selection at current − 0.03 is allowed, below is not', () => {
    expect(holds({ selection: 0.67 }, 'selection_accuracy')).toBe(true);
    expect(holds({ selection: 0.6699 }, 'selection_accuracy')).toBe(false);
  });

  it('an unmeasured precision makes the verdict undecided, never adopt', () => {
    const d = decide(
      arm('policy', { ...WINNER, precision: null }),
      arm('current', { ...CURRENT, precision: null }),
    );
    expect(d).toMatchObject({ adopt: false, verdict: 'undecided' });
    expect(d.clauses.find((c) => c.name === 'call_precision')).toMatchObject({ holds: null });
    expect(d.reason).toMatch(/call_precision could not be evaluated/);
  });

  it('a failing clause decides even when another is not evaluable', () => {
    const d = decide(arm('policy', { ...WINNER, resolve: 0.4, precision: null }), arm('current', CURRENT));
    expect(d.verdict).toBe('not_adopted');
  });
});

describe('ablation rule edges', () => {
  const base: Parameters<typeof arm>[1] = {
    resolve: 0.5,
    cost: 0.002,
    tokens: 4000,
    precision: 0.8,
    selection: 0.7,
  };
  const verdict = (ablated: Partial<typeof base>) =>
    ablationVerdict('gate', arm('policy', base), arm('policy', { ...base, ...ablated }));

  it('deletes a gate whose removal changes nothing beyond noise', () => {
    expect(verdict({}).delete).toBe(true);
    expect(verdict({ cost: 0.0021, tokens: 4200 }).delete).toBe(true); // exactly +5%
    expect(verdict({ cost: 0.0019, tokens: 3800 }).delete).toBe(true); // exactly −5%
  });

  it('keeps it when any measure moves beyond noise', () => {
    expect(verdict({ resolve: 0.55 }).delete).toBe(false);
    expect(verdict({ cost: 0.00211 }).delete).toBe(false);
    expect(verdict({ tokens: 4201 }).delete).toBe(false);
    expect(verdict({ precision: 0.79 }).delete).toBe(false);
    expect(verdict({ selection: 0.71 }).delete).toBe(false);
    expect(verdict({ tokens: 4201 }).reason).toMatch(/tokens/);
  });

  it('keeps it, undecided, when a measure is missing', () => {
    expect(verdict({ precision: null }).delete).toBeNull();
  });
});
