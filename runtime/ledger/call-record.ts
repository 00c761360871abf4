// One call's row through its lifecycle (docs/ledger.md): written `dispatched` with the id its
// proposal announced before anything runs, given its container once there is one, and ended once —
// completed (with the sandbox's receipt when it ran in one), or failed / not executed / denied with
// the reason. Every caller that runs a call (the tool runner, the sandbox run, the evaluation's
// suppression) moves its row through this object, so the order of those writes is written once.
import type { Receipt } from '../sandbox/spec.js';
import {
  completeCall,
  containerCreated,
  dispatchCall,
  endCall,
  markCompleted,
  type NewCall,
} from './calls.js';
import type { DispatchOptions } from './dispatch.js';
import type { Ledger } from './ledger.js';

export class CallRecord {
  private constructor(
    private readonly ledger: Ledger,
    readonly id: string,
  ) {}

  /** Writes the call `dispatched` (with the announced id), then tells the dispatch hook its row exists. */
  static dispatch(ledger: Ledger, call: Omit<NewCall, 'id'>, dispatch: DispatchOptions = {}): CallRecord {
    const record = new CallRecord(ledger, dispatchCall(ledger, { ...call, id: dispatch.callId }));
    dispatch.onDispatched?.(record.id);
    return record;
  }

  /** A call written before, ended by someone else (the sweep of a dead process's calls). */
  static of(ledger: Ledger, id: string): CallRecord {
    return new CallRecord(ledger, id);
  }

  containerCreated(containerId: string): void {
    containerCreated(this.ledger, this.id, containerId);
  }

  /** Ran in this process (read, search, edit, lint): its result is the observation. */
  completed(): void {
    markCompleted(this.ledger, this.id);
  }

  /** Ran in a container: the receipt and the completion in one transaction. */
  completedIn(receipt: Receipt, envKey: string | null): void {
    completeCall(this.ledger, this.id, receipt, envKey);
  }

  /** `failed` when it may have run, `not_executed` when it surely did not, `denied` when refused. */
  ended(status: 'failed' | 'not_executed' | 'denied', reason: string): void {
    endCall(this.ledger, this.id, status, reason);
  }
}
