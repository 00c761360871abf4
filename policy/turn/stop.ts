// Where a stopped run stops. The loop's signal (an interrupt, a caller's cancel) is checked before
// every effect — a model call, a tool's dispatch — and after every wait for one: a signal's handler
// runs only while the process waits, never inside synchronous code, so those are the moments the
// run can have been stopped. Once it is aborted the loop writes nothing more (no turn row, call or
// observation): whoever stopped the run has written its ending.
import type { TurnContext } from './context.js';

/** Throws the signal's reason once the run is stopped. */
export function stopIfAborted(ctx: Pick<TurnContext, 'deps'>): void {
  ctx.deps.signal?.throwIfAborted();
}
