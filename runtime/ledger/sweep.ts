// The start-up sweep of the ledger: what a dead process left unfinished gets a terminal record,
// with the reason. A sandboxed call with no container was surely not executed; one whose container
// existed, or an in-process call (read, search, edit), may have run, so it is `failed` (outcome
// unknown), never silently `completed`.
import type { Ledger } from './ledger.js';
import { endRun } from './runs.js';
import { CallRecord } from './call-record.js';
import { unfinished } from './calls.js';
import { isSandboxTool } from './sandbox-tools.js';

export interface SweptCall {
  callId: string;
  status: 'failed' | 'not_executed';
  reason: string;
}

export function sweepLedger(ledger: Ledger, isAlive: (owner: string) => boolean, what = 'died'): SweptCall[] {
  const { calls, runs } = unfinished(ledger);
  const swept: SweptCall[] = [];
  for (const call of calls) {
    if (isAlive(call.owner)) continue;
    const pid = call.owner.split(':')[1];
    // Sandboxed tools have not run until their container exists; the others run in process, so
    // without a container nothing says whether they did.
    const sandboxed = isSandboxTool(call.tool);
    const entry: SweptCall = !sandboxed
      ? {
          callId: call.id,
          status: 'failed',
          reason: `owner process ${pid} ${what} while ${call.tool} ran in process; the outcome is unknown`,
        }
      : call.container_id
        ? {
            callId: call.id,
            status: 'failed',
            reason: `owner process ${pid} ${what} while the call was in container ${call.container_id.slice(0, 12)}; the container was removed, the outcome is unknown`,
          }
        : {
            callId: call.id,
            status: 'not_executed',
            reason: `owner process ${pid} ${what} before a container was created`,
          };
    CallRecord.of(ledger, entry.callId).ended(entry.status, entry.reason);
    swept.push(entry);
  }
  for (const run of runs) {
    if (!isAlive(run.owner)) endRun(ledger, run.id, 'interrupted', `the process running it ${what}`);
  }
  return swept;
}
