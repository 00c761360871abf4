// The agent loop (docs/turn.md): caps and resume here, one turn at a time in turn/step.ts —
// observe → triggers → retrieve → select → validate → execute → trust gate → observe. The model and
// every effect are injected; the stages between the model call and the tool are deterministic.
// Every proposal ends in exactly one terminal ledger record: executed, rejected, no-op, or a
// reserved outcome; every run ends in exactly one `result` event. A stopped run (`deps.signal`, an
// interrupt) is the exception: whoever stopped it writes its ending, and the loop, at its next
// step, throws the signal's reason with nothing more written (stopIfAborted, turn/context.ts).
import { capReached } from './caps.js';
import type { Outcome, RunResult } from './events.js';
import { OUTCOME_EXIT_CODES } from './outcome-codes.js';
import type { LoopDeps, LoopOptions } from './loop-types.js';
import { strategyFor } from './turn/strategy.js';
import type { TurnContext } from './turn/context.js';
import { runTriggers } from './turn/act.js';
import { Journal } from './turn/journal.js';
import { step } from './turn/step.js';
import { stopIfAborted } from './turn/context.js';

export type { ExecutedLike, LoopDeps, LoopOptions, LoopState, LoopTools } from './loop-types.js';

interface RunEnd {
  outcome: Outcome;
  reason: string;
  question?: string;
}

export async function runLoop(deps: LoopDeps, opts: LoopOptions): Promise<RunResult> {
  const clock = deps.clock ?? Date.now;
  const started = clock();
  const strategy = strategyFor({ opts, embedder: deps.embedder });
  const journal = new Journal(deps.record, (event) => deps.emit(event), strategy);
  const ctx: TurnContext = { deps, opts, strategy, journal, clock, latest: null };
  // A turn counts once it ends; a turn that throws is not counted.
  let turns = opts.resume?.state.turnsUsed ?? 0;
  try {
    stopIfAborted(ctx);
    await begin(ctx, turns);
    for (;;) {
      stopIfAborted(ctx);
      const totals = deps.record.totals();
      const cap = capReached(opts.budget, {
        turns,
        tokens: totals.tokens,
        costUsd: totals.costUsd,
        wallS: (clock() - started) / 1000,
      });
      if (cap) return finish(ctx, turns, { outcome: 'cap', reason: cap });
      const turn = turns + 1;
      const result = await step(ctx, turn);
      turns = turn;
      if (result.kind === 'end') return finish(ctx, turns, result);
    }
  } catch (error) {
    // Whatever failed once the run was stopped (a removed container, a closed ledger) is the stop.
    if (deps.signal?.aborted) throw deps.signal.reason;
    return finish(ctx, turns, { outcome: 'error', reason: (error as Error).message });
  }
}

/**
 * Before the first turn: the model reads the run's last observation; a resumed run records the
 * operator's answer; a new run lets the triggers read the issue text.
 */
async function begin(ctx: TurnContext, turns: number): Promise<void> {
  const { opts, strategy } = ctx;
  const lastRow = ctx.deps.record.recent(1)[0];
  if (lastRow) ctx.latest = strategy.render(lastRow);
  if (opts.resume?.answer !== undefined) {
    ctx.latest = strategy.render(ctx.journal.answered(turns, undefined, opts.resume.answer));
  } else if (!opts.resume) {
    await runTriggers(ctx, strategy.triggers.onText(opts.issueText), 0);
  }
}

/** The run's one ending: a stop is `resolved` only when the ledger shows the repro test passed. */
function finish(ctx: TurnContext, turns: number, end: RunEnd): RunResult {
  const { record } = ctx.deps;
  const repro = record.reproVerdict(ctx.opts.reproTarget);
  const verified = repro.verified;
  const outcome: Outcome = end.outcome === 'stop' && verified ? 'resolved' : end.outcome;
  record.saveState({ turnsUsed: turns, triggers: ctx.strategy.triggers.snapshot() });
  record.end(outcome, end.reason);
  const totals = record.totals();
  const result: RunResult = {
    run_id: record.runId,
    outcome,
    reason: end.reason,
    verified,
    ...(repro.why !== null && end.outcome === 'stop' ? { verification: repro.why } : {}),
    exit_code: OUTCOME_EXIT_CODES[outcome],
    ...(end.question !== undefined ? { question: end.question } : {}),
    turns,
    tokens: totals.tokens,
    cost_usd: totals.costUsd,
    diff: record.diff(),
  };
  ctx.journal.emit({ type: 'result', ...result });
  return result;
}
