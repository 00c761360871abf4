// How the loop runs each call it can make: a registry tool's validated call through LoopTools.run,
// and the harness's own lint (the post-edit lint trigger's tool) through LoopTools.lintFile. The
// trust gate checks what a tool captured against its declared result; lint is the harness's verdict
// on a file, which is what the gate would compare an edit against, so it is recorded trusted as
// produced.
import type { DispatchOptions } from '../../runtime/ledger/dispatch.js';
import type { ExecutedLike, LoopTools } from '../loop-types.js';
import type { ToolCall } from '../registry.js';
import type { LoopStrategy, Trust } from './strategy.js';

/** The harness lint's call: not a registry tool, so never validated or offered to the model. */
interface LintCall {
  tool: 'lint';
  args: { selector: string; path: string };
}

/** A call the loop runs: a validated (or trigger-built) registry call, or the harness lint. */
export type LoopCall = ToolCall | LintCall;

export function runLoopCall(
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
export function verdictOf(
  gate: LoopStrategy['gate'],
  call: LoopCall,
  exec: ExecutedLike,
): { trust: Trust; caveat?: string } {
  if (call.tool === 'lint') return { trust: 'trusted' };
  return gate({ ...call, result: exec.result, receipt: exec.receipt });
}
