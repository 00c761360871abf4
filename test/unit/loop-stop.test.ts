// A stopped run (the loop's signal aborted: an interrupt) stops at its next step: no model call, no
// dispatch, no observation, turn row, ending or saved state after the stop, and the loop throws the
// signal's reason for whoever stopped it to end the run. Over the in-memory record and tools.
import { SPEC_LOOP } from '../../policy/loop-settings.js';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../policy/events.js';
import { runLoop, type LoopTools } from '../../policy/loop.js';
import type { ToolName } from '../../policy/registry.js';
import { MemoryRecord, MemoryRun, MemoryTools, type ToolAnswer } from '../helpers/in-memory-loop.js';
import { scriptModelFromReplies } from '../../runtime/model/script-model.js';
import type { ChatModel, ChatReply, ChatRequest } from '../../runtime/model/types.js';

const TOP = 'textstats.words.top_words';
const call = (tool: string, args: Record<string, unknown>) => JSON.stringify({ tool, args });
const READ = call('read_entity', { selector: TOP });
const EDIT = call('edit_entity', { selector: TOP, search: 'ranked[: n - 1]', replace: 'ranked[:n]' });
const TEST = call('run_test', { target: 'tests/' });
const STOP = call('stop', { reason: 'done' });
const ok = (data: unknown) => ({ ok: true, error: null, data });

const ANSWERS: Record<ToolName, ToolAnswer> = {
  read_entity: { result: ok({ entity: null, body: 'def top_words(text, n): ...' }) },
  search_symbol: { result: ok({ matches: [] }) },
  search_code: { result: ok({ results: [], retrieval: 'lexical' }) },
  edit_entity: { result: ok({ committed: true, lint_clean: true, diff: '-a\n+b\n' }) },
  run_test: {
    result: { passed: true, exit_code: 0, output: '', timed_out: false },
    receipt: { exit_code: 0, timed_out: false },
  },
  execute: { result: { stdout: '', stderr: '', exit_code: 0, timed_out: false } },
};

class Interrupt extends Error {}

/** Counts the model's calls; `during` aborts the run while the given call is in flight. */
function countingModel(replies: string[], stop: AbortController, during?: number) {
  const inner = scriptModelFromReplies(replies);
  const model: ChatModel & { calls: number } = {
    id: inner.id,
    protocol: inner.protocol,
    calls: 0,
    async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
      model.calls++;
      // The reply comes back after the interrupt, as a reply in flight may.
      const reply = await inner.complete(req, signal);
      if (model.calls === during) stop.abort(new Interrupt('SIGTERM'));
      return reply;
    },
  };
  return model;
}

/** Runs the loop; `stopAt` aborts it while that tool's call runs (the call was dispatched). */
async function stoppedRun(replies: string[], how: { stopAt?: ToolName; duringModelCall?: number }) {
  const stop = new AbortController();
  const ledger = new MemoryRun();
  const memory = new MemoryTools({ selectors: [TOP], answer: (tool) => ANSWERS[tool] }, ledger);
  // The stop arrives once the call is dispatched and before its result is back.
  const tools: LoopTools = {
    selectorExists: (selector) => memory.selectorExists(selector),
    hasEvidence: (selector) => memory.hasEvidence(selector),
    run: async (c, origin, turnId, dispatch) => {
      const exec = await memory.run(c, origin, turnId, dispatch);
      if (c.tool === how.stopAt && !stop.signal.aborted) stop.abort(new Interrupt('SIGTERM'));
      return exec;
    },
    lintFile: (selector, path, turnId, dispatch) => memory.lintFile(selector, path, turnId, dispatch),
  };
  const model = countingModel(replies, stop, how.duringModelCall);
  const events: LoopEvent[] = [];
  const emitted = () => events.length;
  let atStop = -1;
  stop.signal.addEventListener('abort', () => (atStop = emitted()));
  const outcome = await runLoop(
    {
      model,
      tools,
      record: new MemoryRecord(ledger),
      emit: (e) => events.push(e),
      signal: stop.signal,
    },
    {
      issueText: 'top_words returns one word too few',
      settings: SPEC_LOOP,
      reproTarget: 't',
      budget: { maxTurns: 8 },
    },
  ).then(
    () => 'returned',
    (error: unknown) => error,
  );
  return { outcome, ledger, model, events, after: events.slice(atStop) };
}

describe('a stopped loop stops (in-memory effects)', () => {
  it('stopped while the edit runs: the edit is not observed, and nothing runs or is written after it', async () => {
    const { outcome, ledger, model, after } = await stoppedRun([READ, EDIT, TEST, STOP], {
      stopAt: 'edit_entity',
    });
    expect(outcome).toBeInstanceOf(Interrupt);
    const edit = ledger.calls.find((c) => c.tool === 'edit_entity')!;
    // The call that was in flight is the last one; the interrupt's sweep marks it, not the loop.
    expect(ledger.calls.at(-1)).toBe(edit);
    expect(ledger.observations.filter((o) => o.callId === edit.id)).toEqual([]);
    expect(model.calls).toBe(2); // the read's and the edit's selection, none after
    expect(ledger.turns).toHaveLength(2);
    expect(ledger.ending).toBeNull();
    expect(ledger.saved).toBeNull();
    expect(after).toEqual([]);
  });

  it('stopped while the model answers: the reply is not recorded, nor acted on', async () => {
    const { outcome, ledger, model, after } = await stoppedRun([READ, EDIT, TEST, STOP], {
      duringModelCall: 2,
    });
    expect(outcome).toBeInstanceOf(Interrupt);
    expect(model.calls).toBe(2);
    // The second turn was started before the stop; its reply came after and is not written.
    expect(ledger.turns).toHaveLength(2);
    expect(ledger.turns[1]).toMatchObject({ rawOutput: null, action: null });
    expect(ledger.calls.map((c) => c.tool)).not.toContain('edit_entity');
    expect(ledger.ending).toBeNull();
    expect(after).toEqual([]);
  });

  it("stopped while the formed patch's test runs (a trigger): no later call or turn", async () => {
    const { outcome, ledger, model } = await stoppedRun([READ, EDIT, TEST, STOP], { stopAt: 'run_test' });
    expect(outcome).toBeInstanceOf(Interrupt);
    const tests = ledger.calls.filter((c) => c.tool === 'run_test');
    expect(tests).toHaveLength(1);
    expect(ledger.calls.at(-1)).toBe(tests[0]);
    expect(ledger.observations.filter((o) => o.callId === tests[0]!.id)).toEqual([]);
    expect(model.calls).toBeLessThanOrEqual(3);
    expect(ledger.ending).toBeNull();
  });

  it('stopped before it starts: no trigger, no model call, nothing written', async () => {
    const stop = new AbortController();
    stop.abort(new Interrupt('SIGINT'));
    const ledger = new MemoryRun();
    const model = countingModel([STOP], stop);
    const run = runLoop(
      {
        model,
        tools: new MemoryTools({ selectors: [TOP], answer: (tool) => ANSWERS[tool] }, ledger),
        record: new MemoryRecord(ledger),
        emit: () => undefined,
        signal: stop.signal,
      },
      { issueText: `see ${TOP}`, settings: SPEC_LOOP, reproTarget: null, budget: { maxTurns: 3 } },
    );
    await expect(run).rejects.toBeInstanceOf(Interrupt);
    expect(model.calls).toBe(0);
    expect(ledger.calls).toEqual([]);
    expect(ledger.turns).toEqual([]);
    expect(ledger.ending).toBeNull();
  });
});
