// How a tool that runs in this process (read, search, edit) is recorded: its ledger row is written
// `dispatched` before it runs, then `completed`, or `failed` with the message of what went wrong,
// which also becomes its result (a failed envelope), so a failure never escapes as a throw. The one
// throw is a stopped run's (`signal`): its calls were marked by whoever stopped it.
import type { ExecutedCall } from './tool.js';
import { codeOf, type ToolContext } from './tool-context.js';
import { CallRecord } from '../../runtime/ledger/call-record.js';

export async function runInProcess<R>(
  ctx: ToolContext,
  args: Record<string, unknown>,
  work: (callId: string) => Promise<R>,
  /** The terminal record of a result (default: completed, as captured). */
  recorded: (call: CallRecord, result: R) => ExecutedCall = (call, result) => {
    call.completed();
    return { callId: call.id, kind: ctx.kind, target: ctx.target, result, receipt: null };
  },
): Promise<ExecutedCall> {
  const o = ctx.options;
  const { origin, turnId } = ctx;
  const call = CallRecord.dispatch(
    o.ledger,
    { runId: o.runId, tool: ctx.tool, args, origin, owner: o.owner, turnId },
    ctx.dispatch,
  );
  try {
    const result = await work(call.id);
    o.signal?.throwIfAborted();
    return recorded(call, result);
  } catch (error) {
    if (o.signal?.aborted) throw o.signal.reason;
    call.ended('failed', (error as Error).message);
    const result = { ok: false, error: (error as Error).message, data: null };
    return { callId: call.id, kind: ctx.kind, target: ctx.target, result, receipt: null };
  }
}

/** What the read and search primitives need of the run (primitives/read-context.ts). */
export function readContext(ctx: ToolContext, callId: string) {
  const o = ctx.options;
  return {
    index: codeOf(o).index,
    ledger: o.ledger,
    runId: o.runId,
    callId,
    embedder: o.embedder,
    retrieve: o.retrieve,
  };
}
