// Turn rows → the loop's turn numbers. The ledger writes one turn row per model call, and a turn
// whose first proposal was rejected gets one re-selection on the same turn (policy/loop.ts), so
// two rows can share a loop turn. Replaying the loop's counting over the rows gives the numbers
// the run's events showed, and the turns a run has used (what `resume` needs when a run was
// interrupted before it could save its state).
import type { TurnView } from './run-document.js';

export interface LoopTurn {
  /** 1-based, as the loop's `turn` events number them. */
  turn: number;
  reselection: boolean;
}

/** One entry per turn row (the group before the first turn excluded), in order. */
export function loopTurns(turns: readonly TurnView[]): LoopTurn[] {
  const out: LoopTurn[] = [];
  let turn = 0;
  let attempt = 0;
  for (const t of turns) {
    if (t.idx === null) continue;
    if (attempt === 0) turn++;
    out.push({ turn, reselection: attempt === 1 });
    const rejected = t.calls.some((c) => c.origin === 'model' && c.verdict === 'rejected');
    attempt = rejected && attempt === 0 ? 1 : 0;
  }
  return out;
}

/**
 * Turns a run has consumed: every loop turn that got its model reply. A last row still waiting for
 * its reply (the process died during the model call) is a turn that never finished: not counted,
 * as the loop itself counts a turn only when it ends.
 */
export function turnsUsed(turns: readonly TurnView[]): number {
  const rows = turns.filter((t) => t.idx !== null);
  const numbers = loopTurns(rows);
  const last = rows.at(-1);
  const unfinished = last !== undefined && last.raw_output === null && last.action === null;
  const lastTurn = numbers.at(-1)?.turn ?? 0;
  return unfinished ? lastTurn - 1 : lastTurn;
}
