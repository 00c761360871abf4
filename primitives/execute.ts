// execute(code, timeout=10): Python in a fresh sandbox with no workspace and no network; served from
// the warm pool when one is running. The result is the captured streams and the engine's exit code.
import { runRecorded } from '../runtime/recorded-run.js';
import { EXECUTE_ARGV } from '../runtime/sandbox/pool.js';
import type { ExecuteResult } from './results/sandbox-results.js';
import type { SandboxContext } from './sandbox-context.js';

export interface ExecuteArgs {
  code: string;
  timeout?: number;
}

export async function execute(
  ctx: SandboxContext,
  args: ExecuteArgs,
): Promise<{ callId: string; result: ExecuteResult }> {
  const timeout = args.timeout ?? 10;
  const { callId, receipt } = await runRecorded(
    ctx.ledger,
    ctx.sandbox,
    {
      runId: ctx.runId,
      tool: 'execute',
      args: { code: args.code, timeout },
      origin: ctx.origin,
      owner: ctx.owner,
      turnId: ctx.turnId,
    },
    { image: ctx.sandbox.image, argv: EXECUTE_ARGV, stdin: args.code, limits: { timeoutS: timeout } },
    ctx.dispatch,
  );
  return {
    callId,
    result: {
      stdout: receipt.stdout,
      stderr: receipt.stderr,
      exit_code: receipt.exit_code,
      timed_out: receipt.timed_out,
    },
  };
}
