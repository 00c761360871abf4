// The loop alone, over the in-memory record and tools (test/helpers/in-memory-loop.ts) and a scripted
// model: its phases, the exact rejection strings, the triggers, the trust gate, the caps, ask_user,
// and when a stop is `resolved`. No python3, tree-sitter, SQLite or Docker: pure and fast.
import { BASELINE_LOOP, SPEC_LOOP } from '../../policy/loop-settings.js';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../policy/events.js';
import { runLoop, type LoopOptions } from '../../policy/loop.js';
import type { ToolName } from '../../policy/registry.js';
import type { Entity } from '../../primitives/types.js';
import { MemoryRecord, MemoryRun, MemoryTools, type ToolAnswer } from '../helpers/in-memory-loop.js';
import { scriptModelFromReplies } from '../../runtime/model/script-model.js';

const TOP = 'textstats.words.top_words';
const call = (tool: string, args: Record<string, unknown>) => JSON.stringify({ tool, args });
const STOP = call('stop', { reason: 'done' });
const READ = call('read_entity', { selector: TOP });
const EDIT = call('edit_entity', { selector: TOP, search: 'ranked[: n - 1]', replace: 'ranked[:n]' });
const DIFF = '@@ -1,1 +1,1 @@\n-    return ranked[: n - 1]\n+    return ranked[:n]\n';
// An entity and a match as the primitives return them: the trust gate checks their whole shape.
const entity: Entity = {
  selector: TOP,
  kind: 'function',
  name: 'top_words',
  path: 'w.py',
  startLine: 3,
  endLine: 5,
  startByte: 20,
  endByte: 90,
  signature: 'def top_words(text, n):',
  doc: null,
  async: false,
};
const match = { selector: TOP, kind: 'function', signature: entity.signature, path: 'w.py', line: 3 };
const ok = (data: unknown) => ({ ok: true, error: null, data });
const test = (passed: boolean, exitCode = passed ? 0 : 1): ToolAnswer => ({
  result: { passed, exit_code: exitCode, output: '', timed_out: false },
  receipt: { exit_code: exitCode, timed_out: false },
});

/** What the primitives would capture on the sample repository, for the calls these tests make. */
function answer(tool: ToolName, args: Record<string, unknown>, testPasses: boolean): ToolAnswer {
  switch (tool) {
    case 'read_entity':
      return { result: ok({ entity, body: 'def top_words(text, n): ...' }) };
    case 'search_symbol':
      return { result: ok({ matches: [match] }) };
    case 'search_code':
      return { result: ok({ results: [], retrieval: 'lexical' }) };
    case 'edit_entity':
      return { result: ok({ committed: true, lint_clean: true, diff: DIFF }) };
    case 'run_test':
      return test(testPasses);
    case 'execute':
      return { result: { stdout: String(args.code), stderr: '', exit_code: 0, timed_out: false } };
  }
}

async function run(
  replies: string[],
  opts: Partial<LoopOptions> & {
    testPasses?: boolean;
    askUser?: (q: string) => Promise<string | null>;
    answers?: Partial<Record<ToolName, ToolAnswer>>;
  } = {},
) {
  const ledger = new MemoryRun();
  const tools = new MemoryTools(
    {
      selectors: [TOP],
      answer: (tool, args) => opts.answers?.[tool] ?? answer(tool, args, opts.testPasses ?? true),
    },
    ledger,
  );
  const events: LoopEvent[] = [];
  const result = await runLoop(
    {
      model: scriptModelFromReplies(replies),
      tools,
      record: new MemoryRecord(ledger),
      emit: (e) => events.push(e),
      ...(opts.askUser ? { askUser: opts.askUser } : {}),
    },
    {
      issueText: opts.issueText ?? 'top_words returns one word too few',
      settings: opts.settings ?? SPEC_LOOP,
      reproTarget: opts.reproTarget ?? null,
      budget: opts.budget ?? { maxTurns: 6 },
      ...(opts.resume ? { resume: opts.resume } : {}),
    },
  );
  const of = <T extends LoopEvent['type']>(type: T) =>
    events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);
  const triggers = of('proposal').flatMap((e) => (e.origin === 'trigger' ? [e.trigger] : []));
  const stored = (kind: string) =>
    ledger.observations.filter((o) => o.kind === kind).map((o) => JSON.parse(o.result) as unknown);
  return { result, events, of, triggers, ledger, stored };
}

describe('the loop over in-memory effects', () => {
  it('runs the phases of a turn in order, the triggers an observation sets off after it', async () => {
    const { events, result } = await run([READ, STOP]);
    const turn1 = events.slice(
      0,
      events.findIndex((e) => e.type === 'turn' && e.turn === 2),
    );
    expect(turn1.map((e) => (e.type === 'execution' ? `execution:${e.phase}` : e.type))).toEqual([
      'turn',
      'toolset',
      'usage',
      'proposal',
      'execution:started',
      'execution:finished',
      'observation',
      // The read's observation names two symbol tokens (the selector, the file): one search each.
      ...['proposal', 'execution:started', 'execution:finished', 'observation'],
      ...['proposal', 'execution:started', 'execution:finished', 'observation'],
    ]);
    expect(turn1.filter((e) => e.type === 'proposal').map((e) => e.origin)).toEqual([
      'model',
      'trigger',
      'trigger',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'result', outcome: 'stop', exit_code: 4, turns: 2 });
    expect(result.verified).toBe(false);
  });

  it("names each call's id on its proposal: the executed or rejected row's id; null for stop", async () => {
    const { of, ledger } = await run([call('frobnicate', {}), READ, EDIT, STOP], { reproTarget: 't' });
    const proposals = of('proposal');
    const byTool = (tool: string) => proposals.filter((p) => p.tool === tool);
    expect(byTool('stop').map((p) => p.call_id)).toEqual([null]);
    const withIds = proposals.filter((p) => p.tool !== 'stop');
    // Every call made, model or trigger, executed or rejected, was announced with its row's id.
    const ids = (list: Array<string | null>) => [...list].sort();
    expect(ids(withIds.map((p) => p.call_id))).toEqual(ids(ledger.calls.map((c) => c.id)));
    expect(withIds.map((p) => p.origin)).toContain('trigger');
    const started = of('execution').filter((e) => e.phase === 'started');
    for (const e of started) expect(withIds.find((p) => p.call_id === e.call_id)?.tool).toBe(e.tool);
    expect(ledger.calls.find((c) => c.id === byTool('frobnicate')[0]!.call_id)?.verdict).toBe('rejected');
  });

  it('rejects with the exact reasons, reselects once on the same turn, then the turn is spent', async () => {
    const { of, result, ledger } = await run([
      call('frobnicate', {}),
      call('read_entity', { selector: 'textstats.nope' }),
      call('read_entity', {}),
      EDIT,
      STOP,
    ]);
    expect(of('rejection').map((e) => [e.turn, e.reason, e.reselect])).toEqual([
      [1, 'unknown tool: frobnicate', true],
      [1, 'precondition failed: unknown selector textstats.nope', false],
      [2, 'missing required arg: selector', true],
      [2, `precondition failed: no evidence for selector ${TOP}`, false],
    ]);
    expect(result.turns).toBe(3);
    expect(ledger.calls.filter((c) => c.verdict === 'rejected')).toHaveLength(4);
    expect(JSON.parse(ledger.observations[0]!.result)).toEqual({
      ok: false,
      rejected: true,
      tool: 'frobnicate',
      reason: 'unknown tool: frobnicate',
    });
  });

  it('fires the symbol trigger on the issue text, stored as {query, matches}', async () => {
    const { triggers, stored, of } = await run([STOP], { issueText: `\`${TOP}\` is off by one` });
    expect(triggers).toEqual(['symbol_token']);
    expect(stored('symbol')).toEqual([{ query: TOP, matches: [match] }]);
    expect(of('observation')[0]).toMatchObject({ turn: 0, kind: 'symbol', trust: 'trusted' });
  });

  it('lints a committed edit, tests the formed patch, and a stop after a passing test is resolved', async () => {
    const { triggers, stored, result } = await run([READ, EDIT, STOP], { reproTarget: 'tests/test_w.py' });
    expect(triggers.filter((t) => t !== 'symbol_token')).toEqual(['post_edit_lint', 'post_patch_test']);
    expect(stored('lint')).toEqual(['clean']);
    expect(stored('test')).toEqual([{ passed: true, exit_code: 0 }]);
    expect(result).toMatchObject({ outcome: 'resolved', verified: true, exit_code: 0 });
  });

  it('a stop whose repro test fails stays a stop: resolved needs the verified test', async () => {
    const { result, stored } = await run([READ, EDIT, STOP], {
      reproTarget: 'tests/test_w.py',
      testPasses: false,
    });
    expect(stored('test')).toEqual([{ passed: false, exit_code: 1 }]);
    expect(result).toMatchObject({ outcome: 'stop', verified: false, exit_code: 4 });
  });

  it('the trust gate marks an inconsistent result unverified; the baseline shows no marks', async () => {
    const lying = { run_test: test(true, 1) };
    const replies = [call('run_test', { target: 'tests/test_w.py' }), STOP];
    const policy = await run(replies, { answers: lying });
    expect(policy.of('observation')[0]).toMatchObject({
      trust: 'unverified',
      caveat: 'exit-code consistency: passed is true but exit_code is 1',
    });
    expect(policy.ledger.observations[0]).toMatchObject({ trust: 'unverified' });
    const current = await run(replies, { answers: lying, settings: BASELINE_LOOP });
    expect(current.of('observation')[0]).toMatchObject({ trust: null });
    expect(current.of('observation')[0]).not.toHaveProperty('caveat');
  });

  it('halts on the turn cap before a turn starts, counting no-op turns', async () => {
    const { result, of } = await run(['not json', READ, READ], { budget: { maxTurns: 2 } });
    expect(of('noop')).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'cap', reason: 'turn cap: 2 of 2 turns used', exit_code: 4 });
  });

  it('ask_user ends the run with the question, or takes the operator answer and goes on', async () => {
    const ask = call('ask_user', { question: 'which n?' });
    const ended = await run([ask]);
    expect(ended.result).toMatchObject({ outcome: 'ask_user', question: 'which n?', exit_code: 3 });
    const answered = await run([ask, STOP], { askUser: () => Promise.resolve('n = 3') });
    expect(answered.of('answer')).toEqual([{ type: 'answer', turn: 1, answer: 'n = 3' }]);
    expect(answered.stored('user')).toEqual([{ answer: 'n = 3' }]);
    expect(answered.result.turns).toBe(2);
  });

  it('a failed model call ends the run with outcome error', async () => {
    const { result } = await run([READ]);
    expect(result.outcome).toBe('error');
    expect(result.reason).toMatch(/^model call failed: the script script:replay has no reply left/);
    expect(result.exit_code).toBe(1);
  });

  it('the baseline arm fires no trigger and saves the trigger memory it was given', async () => {
    const { triggers, ledger } = await run([READ, EDIT, STOP], {
      settings: BASELINE_LOOP,
      issueText: `${TOP} is off by one`,
      reproTarget: 'tests/test_w.py',
    });
    expect(triggers).toEqual([]);
    expect(ledger.saved).toEqual({
      turnsUsed: 3,
      triggers: { fired: [], committedEdits: [], untestedEdits: 0 },
    });
  });
});
