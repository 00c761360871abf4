// Running one call, the model's or a trigger's: the execution events around it, the trust gate's
// verdict on what it captured, and its observation. Trigger calls chain: an edit a trigger commits
// fires that edit's own triggers.
import type { ExecutedLike, ObservationRowLike } from '../loop-types.js';
import { triggerObservation, type TriggerCall } from '../triggers.js';
import type { TurnContext } from './context.js';
import type { DeniedNote } from './harness-notes.js';
import { stopIfAborted } from './stop.js';
import { runLoopCall, verdictOf, type LoopCall } from './tool-table.js';

interface CallToRun {
  /** The id its proposal event announced; the ledger row is written with it. */
  callId: string;
  call: LoopCall;
  origin: 'model' | 'trigger';
  /** A trigger's call: its observation takes the trigger's shape. */
  trigger?: TriggerCall;
}

export async function execute(
  ctx: TurnContext,
  turn: number,
  turnId: number | undefined,
  call: CallToRun,
): Promise<{ exec: ExecutedLike; row: ObservationRowLike }> {
  const { origin } = call;
  const { tool } = call.call;
  // `started` carries the id the ledger row has, so it is told once that row exists; a tool
  // wrapper that does not pass the hook on gets it told just before `finished`.
  let started = false;
  const onDispatched = (callId: string) => {
    if (!started)
      ctx.journal.emit({ type: 'execution', phase: 'started', turn, call_id: callId, tool, origin });
    started = true;
  };
  stopIfAborted(ctx);
  const t0 = ctx.clock();
  const dispatch = { callId: call.callId, onDispatched };
  const exec = await runLoopCall(ctx.deps.tools, call.call, origin, turnId, dispatch);
  // Stopped while it ran: the stop marked the call; its result is not observed.
  stopIfAborted(ctx);
  onDispatched(exec.callId);
  ctx.journal.emit({
    type: 'execution',
    phase: 'finished',
    turn,
    call_id: exec.callId,
    tool,
    origin,
    exit_code: exec.receipt?.exit_code ?? null,
    timed_out: exec.receipt?.timed_out ?? false,
    ms: ctx.clock() - t0,
  });
  if (exec.denied) {
    // The authorization stage refused it: the harness's own record of the decision, not a result.
    const note: DeniedNote = { denied: true, reason: exec.denied.reason };
    const row = ctx.journal.executed(turn, turnId, exec, note, { trust: 'trusted' });
    return { exec, row };
  }
  const stored = call.trigger ? triggerObservation(call.trigger, exec.result) : exec.result;
  const verdict = verdictOf((c) => ctx.strategy.gate(c), call.call, exec);
  const row = ctx.journal.executed(turn, turnId, exec, stored, verdict);
  return { exec, row };
}

/** Runs the triggers' calls in order; an edit one of them commits fires its own triggers first. */
export async function runTriggers(
  ctx: TurnContext,
  calls: TriggerCall[],
  turn: number,
  turnId?: number,
): Promise<void> {
  for (const t of calls) {
    const callId = ctx.deps.record.newCallId();
    ctx.journal.emit({
      type: 'proposal',
      turn,
      call_id: callId,
      tool: t.tool,
      args: t.args,
      origin: 'trigger',
      trigger: t.trigger,
    });
    const { exec } = await execute(ctx, turn, turnId, { callId, call: t, origin: 'trigger', trigger: t });
    if (exec.edit) await runTriggers(ctx, ctx.strategy.triggers.onEditCommitted(exec.edit), turn, turnId);
  }
}
