// One turn: the toolset for it, then select → act. A rejected proposal gets one re-selection on
// the same turn; a second rejection, a no-op reply or an executed call end the turn.
import { CONTINUE, type StepResult, type TurnContext } from './context.js';
import { act } from './act.js';
import { select } from './select.js';
import { SELECTIONS_PER_TURN } from './turn-count.js';

export async function step(ctx: TurnContext, turn: number): Promise<StepResult> {
  const { journal } = ctx;
  journal.emit({ type: 'turn', turn });
  const retrieval = await ctx.strategy.retrieve({
    issueText: ctx.opts.issueText,
    latestObservation: ctx.latest ?? '',
  });
  journal.emit({
    type: 'toolset',
    turn,
    tools: retrieval.tools,
    truncated: retrieval.truncated,
    source: retrieval.source,
  });
  for (let attempt = 0; attempt < SELECTIONS_PER_TURN; attempt++) {
    const selection = await select(ctx, turn, retrieval.tools);
    if (selection.kind === 'failed')
      return { kind: 'end', outcome: 'error', reason: `model call failed: ${selection.message}` };
    if (selection.kind === 'noop') {
      ctx.latest = ctx.strategy.render(journal.noop(turn, selection.turnId, selection.reason));
      return CONTINUE;
    }
    const acted = await act(ctx, {
      turn,
      turnId: selection.turnId,
      proposal: selection.proposal,
      reselect: attempt + 1 < SELECTIONS_PER_TURN,
      ...(selection.text ? { text: selection.text } : {}),
    });
    if (acted.kind !== 'rejected') return acted;
  }
  return CONTINUE;
}
