// Acting on one accepted proposal: ask_user and stop end the turn (after the post-patch test a
// formed patch owes); a tool call is validated — a rejection goes back to the model — then run,
// gated and observed, and the triggers its result sets off run after it.
import type { Proposal } from '../proposal.js';
import { classifyProposal } from '../validate.js';
import { CONTINUE, type StepResult, type TurnContext } from './context.js';
import { execute, runTriggers } from './execute.js';
import { stopIfAborted } from './stop.js';

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
