// Turn rows → the loop's turn numbers. The ledger writes one turn row per model call; how those
// group into the loop's turns (a rejected proposal's re-selection shares its turn) is the loop's
// rule, policy/turn/step.ts, applied here to the rows as the ledger views read them.
import { numberSelections, turnsUsed as loopTurnsUsed, type SelectionRow } from '../../policy/turn/step.js';
import type { TurnView } from './run-document.js';

export interface LoopTurn {
  /** 1-based, as the loop's `turn` events number them. */
  turn: number;
  reselection: boolean;
}

/** One entry per turn row (the group before the first turn excluded), in order. */
export function loopTurns(turns: readonly TurnView[]): LoopTurn[] {
  return numberSelections(selectionRows(turns));
}

/** Turns a run has consumed (what `resume` needs when a run was interrupted before saving its state). */
export function turnsUsed(turns: readonly TurnView[]): number {
  return loopTurnsUsed(selectionRows(turns));
}

function selectionRows(turns: readonly TurnView[]): SelectionRow[] {
  return turns
    .filter((t) => t.idx !== null)
    .map((t) => ({
      rejected: t.calls.some((c) => c.origin === 'model' && c.verdict === 'rejected'),
      awaitingReply: t.raw_output === null && t.action === null,
    }));
}
