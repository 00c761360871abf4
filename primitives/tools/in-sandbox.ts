// How a sandbox tool (run_test, execute) is run and recorded: the primitive writes its own ledger
// row before its container exists (runtime/recorded-run.ts); the receipt the loop and the trust gate
// compare the result with is read back from the ledger's executions row, not from memory.
import type { SandboxContext } from '../sandbox-context.js';
import type { SandboxVerdict } from '../results/sandbox-results.js';
import type { ExecutedCall } from './tool.js';
import type { ToolContext } from './tool-context.js';
import { getExecution } from '../../runtime/ledger/calls.js';
import type { Receipt } from '../../runtime/sandbox/spec.js';

/** What a sandboxed primitive needs of the run, with the repository its snapshot is taken of. */
export function sandboxContext(ctx: ToolContext): SandboxContext & { repoRoot: string } {
  const o = ctx.options;
  return {
    sandbox: o.sandbox,
    ledger: o.ledger,
    runId: o.runId,
    owner: o.owner,
    origin: ctx.origin,
    turnId: ctx.turnId,
    dispatch: ctx.dispatch,
    repoRoot: o.repoRoot,
  };
}

export function sandboxRecorded(
  ctx: ToolContext,
  ran: { callId: string; result: unknown; receipt?: Receipt },
): ExecutedCall {
  return {
    callId: ran.callId,
    kind: ctx.kind,
    target: ctx.target,
    result: ran.result,
    receipt: receiptOf(ctx, ran.callId),
    ...(ran.receipt ? { sandboxReceipt: ran.receipt } : {}),
  };
}

function receiptOf(ctx: ToolContext, callId: string): SandboxVerdict | null {
  const row = getExecution(ctx.options.ledger, callId);
  return row ? { exit_code: row.exit_code, timed_out: row.timed_out === 1 } : null;
}
