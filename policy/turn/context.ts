// What one turn works with: the injected effects, the run's options, its settings' strategy, the
// journal, and the one piece of state carried from turn to turn (the latest observation).
import type { LoopDeps, LoopOptions } from '../loop-types.js';
import type { LoopStrategy } from './strategy.js';
import type { Journal } from './journal.js';

export interface TurnContext {
  deps: LoopDeps;
  opts: LoopOptions;
  strategy: LoopStrategy;
  journal: Journal;
  clock: () => number;
  /** The latest observation as the model reads it; null before the first one. */
  latest: string | null;
}

/** How a turn ends: the loop goes on, or the run ends with this outcome. */
export type StepResult =
  | { kind: 'continue' }
  | { kind: 'end'; outcome: 'stop' | 'ask_user' | 'error'; reason: string; question?: string };

export const CONTINUE: StepResult = { kind: 'continue' };

// Where a stopped run stops. The loop's signal (an interrupt, a caller's cancel) is checked before
// every effect — a model call, a tool's dispatch — and after every wait for one: a signal's handler
// runs only while the process waits, never inside synchronous code, so those are the moments the
// run can have been stopped. Once it is aborted the loop writes nothing more (no turn row, call or
// observation): whoever stopped the run has written its ending.
/** Throws the signal's reason once the run is stopped. */
export function stopIfAborted(ctx: Pick<TurnContext, 'deps'>): void {
  ctx.deps.signal?.throwIfAborted();
}
