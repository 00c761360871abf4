// `piper-agent execute`'s call: a person's execute through the agent's tool runner, under the limits
// the flags give, with the repository at /work (the agent's workspace) or the program alone, in an
// `execute` run of its own.
import { executeTool } from '../../primitives/tools/execute/tool.js';
import type { Limits, Receipt } from '../../runtime/sandbox/spec.js';
import type { CommandSandboxOptions } from '../session.js';
import { inRunOfItsOwn, oneShotCall, openOneShotSession, runOneShot, type OneShotFlags } from './one-shot.js';
import { keepWarmOption } from './warm-option.js';

/** The command's own default wall time, seconds (the tool's is the model's, 10). */
const DEFAULT_TIMEOUT_S = 30;

export interface ExecuteOnce {
  runId: string;
  callId: string;
  ledgerPath: string;
  receipt: Receipt;
}

export async function executeOnce(
  flags: OneShotFlags,
  program: { code: string; limits: Partial<Limits>; workspace: boolean },
): Promise<ExecuteOnce> {
  const { code, workspace } = program;
  // The program alone runs under the sandbox's defaults where no flag is given.
  const limits = workspace
    ? { ...program.limits, timeoutS: program.limits.timeoutS ?? DEFAULT_TIMEOUT_S }
    : program.limits;
  const session = await openOneShotSession(flags, prestartedPool(program.limits, workspace));
  try {
    const call = oneShotCall(executeTool.name, { code });
    const { runId, value } = await inRunOfItsOwn(session, { kind: executeTool.name }, async (id) => {
      const exec = await runOneShot(session, id, call, 'user', { oneShotExecute: { limits, workspace } });
      const receipt = exec.sandboxReceipt;
      if (!receipt) throw new Error(`execute returned no receipt (call ${exec.callId})`);
      return {
        outcome: 'completed',
        reason: `exit code ${receipt.exit_code}`,
        value: { callId: exec.callId, receipt },
      };
    });
    return { runId, ledgerPath: session.ledger.path, ...value };
  } finally {
    await session.close();
  }
}

/**
 * One container started while the run is recorded and the snapshot planned (SandboxOptions.oneShot),
 * or with the workspace claimed warm from an earlier command (keepWarm), when the call's limits are
 * the pool's: with --cpus, --memory or --pids the call runs cold, and a container started beside it
 * would only be removed again.
 */
function prestartedPool(limits: Partial<Limits>, workspace: boolean): CommandSandboxOptions {
  if (limits.cpus !== undefined || limits.memoryMb !== undefined || limits.pids !== undefined) return {};
  return workspace
    ? { workspacePoolSize: 1, workspacePoolLimits: executeTool.limits, oneShot: true, ...keepWarmOption() }
    : { poolSize: 1, oneShot: true };
}
