// What the two sandboxed primitives need: the sandbox, the ledger to record the call in, and who
// is asking (a model proposal or a trigger), so every run has its ledger row before its container.
import type { DispatchOptions } from '../runtime/ledger/dispatch.js';
import type { CallOrigin, Ledger } from '../runtime/ledger/ledger.js';
import type { Sandbox } from '../runtime/sandbox/sandbox.js';

export interface SandboxContext {
  sandbox: Sandbox;
  ledger: Ledger;
  runId: string;
  owner: string;
  origin: CallOrigin;
  turnId?: number;
  /** The call's announced id and the hook told once its row exists (`execution started`). */
  dispatch?: DispatchOptions;
}
