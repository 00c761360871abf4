// What a tool's run needs: the run's effects (the repository with its code index, the lint gate,
// the sandbox, the ledger), and the call's own facts (who asked, in which turn, the id its proposal
// announced, its observation kind and target, computed once by the runner from the definition).
import type { DispatchOptions } from '../../runtime/ledger/dispatch.js';
import type { CallOrigin, Ledger } from '../../runtime/ledger/ledger.js';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';
import type { EditAuthorizer } from '../edit-approval.js';
import type { CodeIndex } from '../index/code-index.js';
import type { LintGate } from '../lint/lint-gate.js';
import type { Embedder } from '../read-context.js';

export interface ToolRunnerOptions {
  repoRoot: string;
  index: CodeIndex;
  lint: LintGate;
  sandbox: Sandbox;
  ledger: Ledger;
  runId: string;
  owner: string;
  embedder?: Embedder;
  retrieve?: 'lexical' | 'embed';
  /** Variables every run_test sets in its container: the environment plan's testEnv (from the project's CI). */
  testEnv?: Record<string, string>;
  /** Lines leading every run_test's output: what the environment changed about the run (a dropped --strict-config). */
  testNotes?: string[];
  /** The run's authorization stage for edits (policy/approval.ts); absent: edits are not asked about. */
  authorizeEdit?: EditAuthorizer;
  /**
   * The run was stopped (an interrupt): no call is dispatched from then on, and an edit in flight
   * writes nothing; each throws the signal's reason.
   */
  signal?: AbortSignal;
}

export interface ToolContext {
  options: ToolRunnerOptions;
  /** The tool's name, as its ledger row records it. */
  tool: string;
  origin: CallOrigin;
  turnId?: number;
  dispatch: DispatchOptions;
  /** The observation kind and target of this call. */
  kind: string;
  target: string;
}
