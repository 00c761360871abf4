// A sandbox run with its ledger record around it (docs/ledger.md): the call is written as
// `dispatched` before the container exists, the container id as soon as it does, and the receipt
// with the call's completion in one transaction after. A run that throws ends its call as
// `failed` (it may have started) or `not_executed` (no container), with the reason.
import type { DispatchOptions } from './ledger/dispatch.js';
import type { CallOrigin, Ledger } from './ledger/ledger.js';
import type { Sandbox } from './sandbox/sandbox.js';
import type { Receipt, RunSpec } from './sandbox/spec.js';
import { CallRecord } from './ledger/call-record.js';

export interface RecordedCall {
  runId: string;
  tool: string;
  args: unknown;
  origin: CallOrigin;
  owner: string;
  turnId?: number;
}

export async function runRecorded(
  ledger: Ledger,
  sandbox: Sandbox,
  call: RecordedCall,
  spec: RunSpec,
  /** The call's announced id, and the hook told once its row exists (before the sandbox starts). */
  dispatch: DispatchOptions = {},
): Promise<{ callId: string; receipt: Receipt }> {
  const record = CallRecord.dispatch(ledger, call, dispatch);
  const callId = record.id;
  let containerId: string | null = null;
  try {
    const receipt = await sandbox.run(
      { ...spec, labels: { run: call.runId, call: callId } },
      {
        onContainer: (id) => {
          containerId = id;
          record.containerCreated(id);
        },
      },
    );
    record.completedIn(receipt, sandbox.envKey);
    return { callId, receipt };
  } catch (error) {
    const reason = (error as Error).message;
    record.ended(containerId ? 'failed' : 'not_executed', reason);
    throw error;
  }
}
