// One turn: the toolset for it, then select → act. A rejected proposal gets one re-selection on
// the same turn; a second rejection, a no-op reply or an executed call end the turn.
import { CONTINUE, type StepResult, type TurnContext } from './context.js';
import { act } from './act.js';
import { select } from './select.js';

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

// ---- turn numbering --------------------------------------------------------------------------------
// How the loop numbers its turns, for the views that read them back from the ledger: one turn row
// per model call, and a turn whose proposal was rejected selects again on the same turn, so a turn
// spans up to SELECTIONS_PER_TURN rows. step() and the ledger views share this rule.
/** One selection, then one re-selection after a rejected proposal; a second rejection ends the turn. */
export const SELECTIONS_PER_TURN = 2;

/** One model call's row as the counting needs it. */
export interface SelectionRow {
  /** The model's proposal on this row was rejected by validation. */
  rejected: boolean;
  /** The row still waits for its model reply: the process died during the model call. */
  awaitingReply?: boolean;
}

export interface NumberedSelection {
  /** 1-based, as the loop's `turn` events number them. */
  turn: number;
  reselection: boolean;
}

/** The loop turn of each selection row, in order. */
export function numberSelections(rows: readonly SelectionRow[]): NumberedSelection[] {
  const out: NumberedSelection[] = [];
  let turn = 0;
  let attempt = 0;
  for (const row of rows) {
    if (attempt === 0) turn++;
    out.push({ turn, reselection: attempt > 0 });
    attempt = row.rejected && attempt + 1 < SELECTIONS_PER_TURN ? attempt + 1 : 0;
  }
  return out;
}

/**
 * Turns a run has consumed: every turn that got its model reply. A last row still waiting for its
 * reply is a turn that never finished: not counted, as the loop counts a turn only when it ends.
 */
export function turnsUsed(rows: readonly SelectionRow[]): number {
  const lastTurn = numberSelections(rows).at(-1)?.turn ?? 0;
  return rows.at(-1)?.awaitingReply === true ? lastTurn - 1 : lastTurn;
}
