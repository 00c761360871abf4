// One run's workspace: the repository with its code index, the lint gate, the sandbox and the
// ledger, and the dispatch of a validated call to its primitive. Every call gets its ledger row
// before it runs (`dispatched`) and a terminal status after; what it returns is what was captured,
// and sandbox receipts are read back from the ledger's executions row, not from memory.
import { readRepoFile } from '../runtime/host/inside-repo.js';
import type { DispatchOptions } from '../runtime/ledger/dispatch.js';
import { editsForRun } from '../runtime/ledger/edits.js';
import { hasEvidence } from '../runtime/ledger/evidence.js';
import type { CallOrigin, Ledger } from '../runtime/ledger/ledger.js';
import type { Sandbox } from '../runtime/sandbox/sandbox.js';
import { callSubject } from './call-subject.js';
import type { EditAuthorizer } from './edit-approval.js';
import { editEntity } from './edit-entity.js';
import { execute } from './execute.js';
import type { CodeIndex } from './index/code-index.js';
import type { LintGate } from './lint/lint-gate.js';
import { describeDiagnostic } from './lint/diagnostic.js';
import { readEntity } from './read-entity.js';
import type { EditEnvelope } from './results/edit-result.js';
import type { SandboxVerdict } from './results/sandbox-results.js';
import type { ToolCallName, ToolResultOf } from './results/tool-results.js';
import type { Embedder } from './read-context.js';
import { runTest } from './run-test.js';
import { searchCode } from './search-code.js';
import { searchSymbol } from './search-symbol.js';

export type { ToolCallName } from './results/tool-results.js';

/** A call the policy validated, ready to run: the tool and its args as the registry decoded them. */
export interface ValidatedCall {
  tool: ToolCallName;
  args: Record<string, unknown>;
}

export interface ExecutedCall {
  callId: string;
  /** Observation kind: read, search, symbol, edit, lint, test, execute. */
  kind: string;
  target: string;
  /**
   * The primitive's result exactly as captured. Typed unknown on purpose: what the loop trusts of it
   * is what the trust gate's parse with the tool's schema (results/tool-results.ts) lets through.
   */
  result: unknown;
  /** run_test / execute: the receipt fields the ledger recorded for this call. */
  receipt: SandboxVerdict | null;
  /** A committed edit: its ledger id, selector and file. */
  edit?: { editId: string; selector: string; path: string };
}

export interface WorkspaceOptions {
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

/** The observation kind of each tool's result (a trigger's search_symbol is `symbol`). */
export const OBSERVATION_KIND: Record<ToolCallName, string> = {
  read_entity: 'read',
  search_symbol: 'search',
  search_code: 'search',
  edit_entity: 'edit',
  run_test: 'test',
  execute: 'execute',
};

export class Workspace {
  constructor(readonly options: WorkspaceOptions) {}

  /** A selector or its import form (CodeIndex.resolve). */
  selectorExists(selector: string): boolean {
    return this.options.index.resolve(selector) !== undefined;
  }

  /** Evidence is recorded under the indexed selector, so the import form finds it too. */
  hasEvidence(selector: string): boolean {
    const indexed = this.options.index.resolve(selector) ?? selector;
    return hasEvidence(this.options.ledger, this.options.runId, indexed);
  }

  /**
   * Runs one validated call; failures of the primitive come back as its result, never as a throw.
   * The one throw is a stopped run's (`signal`): its calls were marked by whoever stopped it.
   */
  async run(
    call: ValidatedCall,
    origin: CallOrigin,
    turnId?: number,
    dispatch: DispatchOptions = {},
  ): Promise<ExecutedCall> {
    const o = this.options;
    o.signal?.throwIfAborted();
    const target = targetOf(call.tool, call.args);
    const kind =
      origin === 'trigger' && call.tool === 'search_symbol' ? 'symbol' : OBSERVATION_KIND[call.tool];
    const sandboxCtx = {
      sandbox: o.sandbox,
      ledger: o.ledger,
      runId: o.runId,
      owner: o.owner,
      origin,
      turnId,
      dispatch,
    };
    if (call.tool === 'run_test') {
      const { callId, result } = await runTest(
        { ...sandboxCtx, repoRoot: o.repoRoot, testEnv: o.testEnv, testNotes: o.testNotes },
        call.args as { target: string; timeout?: number },
      );
      return { callId, kind, target, result, receipt: this.receipt(callId) };
    }
    if (call.tool === 'execute') {
      const { callId, result } = await execute(
        { ...sandboxCtx, repoRoot: o.repoRoot },
        call.args as { code: string; timeout?: number },
      );
      return { callId, kind, target, result, receipt: this.receipt(callId) };
    }
    const callId = o.ledger.dispatchCall({
      id: dispatch.callId,
      runId: o.runId,
      tool: call.tool,
      args: call.args,
      origin,
      owner: o.owner,
      turnId,
    });
    dispatch.onDispatched?.(callId);
    try {
      if (call.tool === 'edit_entity') {
        const edited = await this.edit(call.args, callId);
        o.signal?.throwIfAborted();
        return this.editRecorded(call.args, callId, target, edited);
      }
      const result = await this.read(call, callId);
      o.signal?.throwIfAborted();
      o.ledger.markCompleted(callId);
      return { callId, kind, target, result, receipt: null };
    } catch (error) {
      if (o.signal?.aborted) throw o.signal.reason;
      o.ledger.endCall(callId, 'failed', (error as Error).message);
      return {
        callId,
        kind,
        target,
        result: { ok: false, error: (error as Error).message, data: null },
        receipt: null,
      };
    }
  }

  /** The post-edit lint trigger: the committed file, linted by the harness. */
  async lintFile(
    selector: string,
    path: string,
    turnId?: number,
    dispatch: DispatchOptions = {},
  ): Promise<ExecutedCall> {
    const o = this.options;
    o.signal?.throwIfAborted();
    const callId = o.ledger.dispatchCall({
      id: dispatch.callId,
      runId: o.runId,
      tool: 'lint',
      args: { selector, path },
      origin: 'trigger',
      owner: o.owner,
      turnId,
    });
    dispatch.onDispatched?.(callId);
    try {
      const bytes = readRepoFile(o.index.root, path);
      if (!Buffer.isBuffer(bytes)) throw new Error(bytes.error);
      const source = bytes.toString('utf8');
      const report = await o.lint.check(source, path);
      o.signal?.throwIfAborted();
      o.ledger.markCompleted(callId);
      const result =
        report.diagnostics.length === 0 ? 'clean' : report.diagnostics.map(describeDiagnostic).join('; ');
      return { callId, kind: 'lint', target: selector, result, receipt: null };
    } catch (error) {
      if (o.signal?.aborted) throw o.signal.reason;
      o.ledger.endCall(callId, 'failed', (error as Error).message);
      return {
        callId,
        kind: 'lint',
        target: selector,
        result: `lint could not run: ${(error as Error).message}`,
        receipt: null,
      };
    }
  }

  /** An edit's terminal record: denied (it never ran), or completed with its ledger edit row. */
  private editRecorded(
    args: Record<string, unknown>,
    callId: string,
    target: string,
    result: EditEnvelope,
  ): ExecutedCall {
    const o = this.options;
    const denied = result.data?.denied;
    if (denied) {
      // A refusal is a terminal record of its own: the call never ran, and the model is told so.
      o.ledger.endCall(callId, 'denied', denied.reason);
      return { callId, kind: 'denied', target, result, receipt: null };
    }
    o.ledger.markCompleted(callId);
    const executed: ExecutedCall = {
      callId,
      kind: OBSERVATION_KIND.edit_entity,
      target,
      result,
      receipt: null,
    };
    if (result.data?.committed === true) {
      const row = editsForRun(o.ledger, o.runId)
        .filter((e) => e.call_id === callId)
        .at(-1);
      if (row)
        executed.edit = {
          editId: String(row.id),
          selector: o.index.resolve(String(args.selector)) ?? String(args.selector),
          path: row.path,
        };
    }
    return executed;
  }

  private edit(args: Record<string, unknown>, callId: string): Promise<EditEnvelope> {
    const o = this.options;
    return editEntity(
      {
        repoRoot: o.repoRoot,
        index: o.index,
        ledger: o.ledger,
        runId: o.runId,
        callId,
        lint: o.lint,
        authorize: o.authorizeEdit,
        signal: o.signal,
      },
      args as never,
    );
  }

  /** Typed as the tools' schema outputs: a primitive whose return type drifts does not compile. */
  private async read(
    call: ValidatedCall,
    callId: string,
  ): Promise<ToolResultOf<'read_entity' | 'search_symbol' | 'search_code'>> {
    const o = this.options;
    const readCtx = {
      index: o.index,
      ledger: o.ledger,
      runId: o.runId,
      callId,
      embedder: o.embedder,
      retrieve: o.retrieve,
    };
    switch (call.tool) {
      case 'read_entity':
        return readEntity(readCtx, call.args as never);
      case 'search_symbol':
        return searchSymbol(readCtx, call.args as never);
      case 'search_code':
        return searchCode(readCtx, call.args as never);
      default:
        throw new Error(`not an in-process tool: ${call.tool}`);
    }
  }

  private receipt(callId: string): SandboxVerdict | null {
    const row = this.options.ledger.getExecution(callId);
    return row ? { exit_code: row.exit_code, timed_out: row.timed_out === 1 } : null;
  }
}

function targetOf(tool: ToolCallName, args: Record<string, unknown>): string {
  const text = callSubject(tool, args);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
