// A property test of the loop: random model replies — valid calls, invalid ones, malformed JSON,
// reserved names, two calls in one reply — and every proposal still ends in exactly one terminal
// ledger record (trace completeness 100%), with no exception escaping and no call left dispatched.
import { describe, expect, it } from 'vitest';
import { runFix } from '../../core/fix/run-fix.js';
import type { LoopEvent } from '../../policy/events.js';
import { scriptModelFromReplies } from '../../runtime/model/script-model.js';
import { SELECTIONS_PER_TURN } from '../../policy/turn/step.js';
import { sampleRepo } from '../helpers/sample-repo.js';
import { expectTraceComplete } from '../helpers/trace.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const MAX_TURNS = 10;

const SELECTORS = [
  'textstats.words.top_words',
  'textstats.words.words',
  'textstats.report.summary',
  'textstats.nope',
  '',
];

function randomReply(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const sel = pick(SELECTORS);
  const choices: Array<() => unknown> = [
    () => ({ tool: 'read_entity', args: { selector: sel, body: r() < 0.5 } }),
    () => ({ tool: 'read_entity', args: { selector: sel, window: pick([0, 5, 101, 'ten']) } }),
    () => ({ tool: 'search_symbol', args: { query: pick(['top_words', '', 'Counter', 'textstats.words']) } }),
    () => ({ tool: 'search_code', args: { query: pick(['frequent words', ' ']), cap: pick([3, 9]) } }),
    () => ({
      tool: 'edit_entity',
      args: {
        selector: sel,
        search: pick(['return ranked[: n - 1]', 'absent', 'counts']),
        replace: pick(['return ranked[:n]', 'return undefined_name']),
      },
    }),
    () => ({ tool: 'run_test', args: { target: pick(['tests/test_words.py', '']) } }),
    () => ({ tool: 'execute', args: { code: pick(['print(1)', '']), timeout: pick([5, 0]) } }),
    () => ({ tool: pick(['bash', 'python', 'Read_Entity']), args: {} }),
    () => ({ tool: 'read_entity', args: { selector: sel, extra: 1 } }),
    () => ({ tool: 'read_entity' }),
    () => 'not json at all',
    () => '{"tool": "read_entity", "args": ',
    () => '{"tool": "stop", "args": {}} {"tool": "stop", "args": {}}',
    () => '[{"tool": "stop", "args": {}}]',
    () => ({ tool: 'stop', args: { reason: 'done' } }),
    () => ({ tool: 'ask_user', args: { question: 'which one?' } }),
  ];
  // Terminal replies are rarer so runs have some length.
  const weights = choices.map((_, i) => (i >= choices.length - 2 ? 0.15 : 1));
  let x = r() * weights.reduce((a, b) => a + b, 0);
  let i = 0;
  while ((x -= weights[i]!) > 0) i++;
  const reply = choices[i]!();
  return typeof reply === 'string' ? reply : JSON.stringify(reply);
}

describe('trace completeness under random model replies (real sandbox, real ledger)', () => {
  it.each([1, 2, 3, 4, 5, 6])('seed %i', async (seed) => {
    const r = rng(seed);
    // Enough replies for every selection the turn cap allows: the script never runs out, so an
    // `error` outcome can only be the harness failing.
    const replies = Array.from({ length: MAX_TURNS * SELECTIONS_PER_TURN }, () => randomReply(r));
    const repo = sampleRepo();
    const events: LoopEvent[] = [];
    const result = await runFix({
      issue: 'textstats.words.top_words returns one word too few',
      repo,
      config: { policy: seed % 2 ? 'policy' : 'current', maxTurns: MAX_TURNS },
      reproTarget: 'tests/test_words.py',
      model: scriptModelFromReplies(replies, { id: `random-${seed}` }),
      emit: (e) => events.push(e),
      log: () => undefined,
    });
    expect(['resolved', 'ask_user', 'stop', 'cap'], `${result.outcome}: ${result.reason}`).toContain(
      result.outcome,
    );
    expect(events.at(-1)?.type).toBe('result');
    const turnRows = expectTraceComplete(defaultLedgerPath(repo), result.run_id);
    expect(turnRows).toBeGreaterThan(0);
  });
});
