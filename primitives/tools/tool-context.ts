// What a tool's run needs: the run's effects (the repository with its code index, the lint gate,
// the sandbox, the ledger), and the call's own facts (who asked, in which turn, the id its proposal
// announced, its observation kind and target, computed once by the runner from the definition).
import type { DispatchOptions } from '../../runtime/ledger/dispatch.js';
import type { CallOrigin, Ledger } from '../../runtime/ledger/ledger.js';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';
import type { Limits } from '../../runtime/sandbox/spec.js';
import type { EditAuthorizer } from '../edit-approval.js';
import type { CodeIndex } from '../index/code-index.js';
import type { LintGate } from '../lint/lint-gate.js';
import type { Embedder } from '../read-context.js';
import type { LanguageId } from '../../runtime/language/language.js';

export interface ToolRunnerOptions {
  repoRoot: string;
  /**
   * The code index and the lint gate, which the tools that read, search and edit the code use. A
   * runner for one sandboxed call (a one-shot `run-test` or `execute`) opens neither: run_test and
   * execute never read them, and parsing the repository would cost the command its start.
   */
  index?: CodeIndex;
  lint?: LintGate;
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
  /** The repository's language (default Python): how a run_test target runs and whose output is read. */
  language?: LanguageId;
  /** A JavaScript project's test runner, from its plan (jest, vitest, mocha, node-test, …). */
  testRunner?: string;
  /** The run's authorization stage for edits (policy/approval.ts); absent: edits are not asked about. */
  authorizeEdit?: EditAuthorizer;
  /**
   * The run was stopped (an interrupt): no call is dispatched from then on, and an edit in flight
   * writes nothing; each throws the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * A person's one-shot `piper-agent execute`: the limits its flags give (recorded with the call in
   * place of the tool's timeout), and whether the repository goes in (without it the program runs
   * alone). Absent for the agent, whose execute calls have the tool's limits and the workspace.
   */
  oneShotExecute?: { limits: Partial<Limits>; workspace: boolean };
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

/**
 * The code index and the lint gate of a tool that reads or edits the code. A runner opened without
 * them (one sandboxed call) throws here, inside the call, which records it as the call's failure.
 */
export function codeOf(options: ToolRunnerOptions): { index: CodeIndex; lint: LintGate } {
  const { index, lint } = options;
  if (!index || !lint) throw new Error('this runner has no code index: it was opened for a sandboxed call');
  return { index, lint };
}
