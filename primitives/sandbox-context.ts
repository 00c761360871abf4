// What the two sandboxed primitives need: the sandbox, the ledger to record the call in, and who
// is asking (a model proposal or a trigger), so every run has its ledger row before its container.
import type { CallOrigin, Ledger } from '../runtime/ledger/ledger.js';
import type { Sandbox } from '../runtime/sandbox/sandbox.js';

export interface SandboxContext {
  sandbox: Sandbox;
  ledger: Ledger;
  runId: string;
  owner: string;
  origin: CallOrigin;
  turnId?: number;
  /** Told the call's id as soon as its ledger row exists (the stream's `execution started`). */
  onDispatched?: (callId: string) => void;
}
