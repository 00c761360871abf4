// Acting on one accepted proposal: ask_user and stop end the turn (after the post-patch test a
// formed patch owes); a tool call is validated — a rejection goes back to the model — then run,
// gated and observed, and the triggers its result sets off run after it. Below: running one call
// (the model's or a trigger's) and how each kind of call the loop can make is run.
import type { Proposal } from '../proposal.js';
import { classifyProposal } from '../validate.js';
import { CONTINUE, type StepResult, stopIfAborted, type TurnContext } from './context.js';
import type { ExecutedLike, LoopTools, ObservationRowLike } from '../loop-types.js';
import { type TriggerCall, triggerObservation } from '../triggers.js';
import type { DeniedNote } from './journal.js';
import type { DispatchOptions } from '../../runtime/ledger/dispatch.js';
import type { ToolCall } from '../registry.js';
import type { LoopStrategy, Trust } from './strategy.js';

/** An act ends the turn (or the run), or its proposal was rejected and the model may select again. */
export type ActResult = StepResult | { kind: 'rejected' };

export interface Selected {
  turn: number;
  turnId: number;
  proposal: Proposal;
  /** Whether a rejection here leaves the turn a re-selection. */
  reselect: boolean;
  /** The model's words beside its tool call, shown dimmed by the TUI. */
  text?: string;
}

export async function act(ctx: TurnContext, s: Selected): Promise<ActResult> {
  const { turn, turnId, proposal } = s;
  const classified = classifyProposal(proposal);
  if (classified.kind === 'stop') {
    announce(ctx, s, null);
    await runTriggers(ctx, ctx.strategy.triggers.onModelAction({ kind: 'stop' }), turn, turnId);
    ctx.journal.stopped(turnId, classified.reason);
    return { kind: 'end', outcome: 'stop', reason: classified.reason || 'the model stopped' };
  }
  if (classified.kind === 'ask_user') {
    announce(ctx, s, null);
    return askUser(ctx, turn, turnId, classified.question);
  }
  // The id is taken now, so the proposal names the row the call will have, executed or rejected.
  const callId = ctx.deps.record.newCallId();
  announce(ctx, s, callId);
  const { tools } = ctx.deps;
  const validation = ctx.strategy.validate(proposal, {
    selectorExists: (selector) => tools.selectorExists(selector),
    hasEvidence: (selector) => tools.hasEvidence(selector),
  });
  if (!validation.ok) {
    const row = ctx.journal.rejected(turn, turnId, callId, proposal.args, validation.rejection, s.reselect);
    ctx.latest = ctx.strategy.render(row);
    return { kind: 'rejected' };
  }
  const { call } = validation;
  const triggers = ctx.strategy.triggers;
  await runTriggers(ctx, triggers.onModelAction({ kind: 'call', tool: call.tool }), turn, turnId);
  const { exec, row } = await execute(ctx, turn, turnId, { callId, call, origin: 'model' });
  ctx.latest = ctx.strategy.render(row);
  // A denied call advances no trigger: nothing happened to the repository.
  if (exec.denied) return CONTINUE;
  if (exec.edit) await runTriggers(ctx, triggers.onEditCommitted(exec.edit), turn, turnId);
  await runTriggers(ctx, triggers.onText(ctx.latest), turn, turnId);
  return CONTINUE;
}

/** The proposal event: `call_id` is null for ask_user and stop, which make no call row. */
function announce(ctx: TurnContext, s: Selected, callId: string | null): void {
  ctx.journal.emit({
    type: 'proposal',
    turn: s.turn,
    call_id: callId,
    tool: s.proposal.tool,
    args: s.proposal.args,
    origin: 'model',
    ...(s.text ? { text: s.text } : {}),
  });
}

/** The model's question: answered now (interactive), or the run ends with it for a later resume. */
async function askUser(
  ctx: TurnContext,
  turn: number,
  turnId: number,
  question: string,
): Promise<StepResult> {
  await runTriggers(ctx, ctx.strategy.triggers.onModelAction({ kind: 'ask_user' }), turn, turnId);
  ctx.journal.asked(turn, turnId, question);
  const answer = ctx.deps.askUser ? await ctx.deps.askUser(question) : null;
  stopIfAborted(ctx); // the run was stopped while the operator was asked
  if (answer === null)
    return { kind: 'end', outcome: 'ask_user', reason: 'the model asked the operator a question', question };
  ctx.latest = ctx.strategy.render(ctx.journal.answered(turn, turnId, answer));
  return CONTINUE;
}

// ---- running one call ----------------------------------------------------------------------------
// Running one call, the model's or a trigger's: the execution events around it, the trust gate's
// verdict on what it captured, and its observation. Trigger calls chain: an edit a trigger commits
// fires that edit's own triggers.
interface CallToRun {
  /** The id its proposal event announced; the ledger row is written with it. */
  callId: string;
  call: LoopCall;
  origin: 'model' | 'trigger';
  /** A trigger's call: its observation takes the trigger's shape. */
  trigger?: TriggerCall;
}

async function execute(
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

// ---- the calls the loop can make -------------------------------------------------------------------
// How the loop runs each call it can make: a registry tool's validated call through LoopTools.run,
// and the harness's own lint (the post-edit lint trigger's tool) through LoopTools.lintFile. The
// trust gate checks what a tool captured against its declared result; lint is the harness's verdict
// on a file, which is what the gate would compare an edit against, so it is recorded trusted as
// produced.
/** The harness lint's call: not a registry tool, so never validated or offered to the model. */
interface LintCall {
  tool: 'lint';
  args: { selector: string; path: string };
}

/** A call the loop runs: a validated (or trigger-built) registry call, or the harness lint. */
type LoopCall = ToolCall | LintCall;

function runLoopCall(
  tools: LoopTools,
  call: LoopCall,
  origin: 'model' | 'trigger',
  turnId?: number,
  /** The id the proposal announced, and the hook told once the call's row is written. */
  dispatch?: DispatchOptions,
): Promise<ExecutedLike> {
  if (call.tool === 'lint') return tools.lintFile(call.args.selector, call.args.path, turnId, dispatch);
  return tools.run(call, origin, turnId, dispatch);
}

/** The trust verdict the call's observation is stored with. */
function verdictOf(
  gate: LoopStrategy['gate'],
  call: LoopCall,
  exec: ExecutedLike,
): { trust: Trust; caveat?: string } {
  if (call.tool === 'lint') return { trust: 'trusted' };
  return gate({ ...call, result: exec.result, receipt: exec.receipt });
}
