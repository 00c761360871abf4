// The A/B report's symbol-trigger counts (eval/ab/symbol-triggers.ts): the trigger's search_symbol
// calls of a run, those that found nothing, and the sums per arm.
import { describe, expect, it } from 'vitest';
import { countSymbolTriggers, symbolTriggersByArm } from '../../eval/ab/symbol-triggers.js';

const match = {
  selector: 'pkg.core.f',
  kind: 'function',
  signature: 'def f()',
  path: 'pkg/core.py',
  line: 1,
};

const calls = [
  { id: 'c1', origin: 'trigger' as const, tool: 'search_symbol' },
  { id: 'c2', origin: 'trigger' as const, tool: 'search_symbol' },
  { id: 'c3', origin: 'trigger' as const, tool: 'search_symbol' },
  // The model's own search and the post-patch test are not the symbol trigger.
  { id: 'c4', origin: 'model' as const, tool: 'search_symbol' },
  { id: 'c5', origin: 'trigger' as const, tool: 'run_test' },
  { id: 'c6', origin: 'trigger' as const, tool: 'search_symbol' },
];
const observations = [
  { call_id: 'c1', result: JSON.stringify({ query: 'pkg.core.f', matches: [match] }) },
  // `core.py` in an issue: a dotted token, the regex fires, nothing has that name.
  { call_id: 'c2', result: JSON.stringify({ query: 'core.py', matches: [] }) },
  { call_id: 'c3', result: JSON.stringify({ query: 'words.py', matches: [] }) },
  { call_id: 'c4', result: JSON.stringify({ ok: true, error: null, data: { matches: [] } }) },
  { call_id: 'c5', result: JSON.stringify({ passed: true, exit_code: 0 }) },
  // A result without the trigger's shape (the trust gate's caveat said why): found nothing usable.
  { call_id: 'c6', result: '{"not": "a symbol observation"}' },
  { call_id: null, result: '{"noop": true, "reason": "x"}' },
];

describe('symbol trigger counts', () => {
  it('counts the trigger searches of a run and those with zero matches, with their queries', () => {
    expect(countSymbolTriggers(calls, observations)).toEqual({
      fired: 4,
      zero_matches: 3,
      zero_match_queries: ['core.py', 'words.py'],
    });
  });

  it('is zero for a run without triggers (the baseline arm)', () => {
    expect(countSymbolTriggers(calls.slice(3, 4), observations)).toEqual({
      fired: 0,
      zero_matches: 0,
      zero_match_queries: [],
    });
  });

  it('sums per arm over its instances only, and names an arm with none', () => {
    const count = (fired: number, zero: number) => ({
      fired,
      zero_matches: zero,
      zero_match_queries: [],
    });
    expect(
      symbolTriggersByArm(
        [
          { arm: 'policy', symbol_triggers: count(3, 1) },
          { arm: 'policy', symbol_triggers: count(2, 2) },
          { arm: 'current', symbol_triggers: count(0, 0) },
        ],
        ['policy', 'current'],
      ),
    ).toEqual({
      policy: { instances: 2, fired: 5, zero_matches: 3 },
      current: { instances: 1, fired: 0, zero_matches: 0 },
    });
    expect(symbolTriggersByArm([], ['policy'])).toEqual({
      policy: { instances: 0, fired: 0, zero_matches: 0 },
    });
  });
});
