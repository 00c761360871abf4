// What a caller hands down with one call to be dispatched: the id it already announced (the
// stream's `proposal` names the call before it runs, so the id is taken first with newCallId())
// and a hook told once the call's ledger row exists (the stream's `execution started`).
export interface DispatchOptions {
  /** The id the call's row is written with; absent: a fresh one. */
  callId?: string;
  /** Told the call's id as soon as its ledger row exists, before the call runs. */
  onDispatched?: (callId: string) => void;
}
