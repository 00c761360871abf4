// One run's tool runner: the repository with its code index, the lint gate, the sandbox and the
// ledger, and the dispatch of a validated call to its tool's module (tools/all-tools.ts). Every call
// gets its ledger row before it runs (`dispatched`) and a terminal status after; what it returns is
// what was captured, and sandbox receipts are read back from the ledger's executions row, not from
// memory. (The repository snapshot a sandboxed call gets is runtime/workspace/, not this.)
import { readRepoFile } from '../runtime/host/inside-repo.js';
import type { DispatchOptions } from '../runtime/ledger/dispatch.js';
import { hasEvidence } from '../runtime/ledger/evidence.js';
import type { CallOrigin } from '../runtime/ledger/ledger.js';
import { describeDiagnostic } from './lint/diagnostic.js';
import { callSubject, observationKind, runToolCall, type ToolCall } from './tools/all-tools.js';
import type { ExecutedCall } from './tools/tool.js';
import { codeOf, type ToolRunnerOptions } from './tools/tool-context.js';
import { CallRecord } from '../runtime/ledger/call-record.js';

export type { ExecutedCall } from './tools/tool.js';
export type { ToolRunnerOptions } from './tools/tool-context.js';

/** The harness's own lint of a committed file (the post-edit lint trigger): not a registry tool. */
const LINT = 'lint';

export class ToolRunner {
  constructor(readonly options: ToolRunnerOptions) {}

  /** A selector or its import form (CodeIndex.resolve). */
  selectorExists(selector: string): boolean {
    return this.options.index?.resolve(selector) !== undefined;
  }

  /** Evidence is recorded under the indexed selector, so the import form finds it too. */
  hasEvidence(selector: string): boolean {
    const indexed = this.options.index?.resolve(selector) ?? selector;
    return hasEvidence(this.options.ledger, this.options.runId, indexed);
  }

  /**
   * Runs one validated call; failures of the primitive come back as its result, never as a throw.
   * The one throw is a stopped run's (`signal`): its calls were marked by whoever stopped it.
   */
  async run(
    call: ToolCall,
    origin: CallOrigin,
    turnId?: number,
    dispatch: DispatchOptions = {},
  ): Promise<ExecutedCall> {
    this.options.signal?.throwIfAborted();
    const kind = observationKind(call.tool, origin);
    const target = targetOf(callSubject(call.tool, call.args));
    return runToolCall(call, {
      options: this.options,
      tool: call.tool,
      origin,
      turnId,
      dispatch,
      kind,
      target,
    });
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
    const call = CallRecord.dispatch(
      o.ledger,
      { runId: o.runId, tool: LINT, args: { selector, path }, origin: 'trigger', owner: o.owner, turnId },
      dispatch,
    );
    const callId = call.id;
    try {
      const { index, lint } = codeOf(o);
      const bytes = readRepoFile(index.root, path);
      if (!Buffer.isBuffer(bytes)) throw new Error(bytes.error);
      const source = bytes.toString('utf8');
      const report = await lint.check(source, path);
      o.signal?.throwIfAborted();
      call.completed();
      const result =
        report.diagnostics.length === 0 ? 'clean' : report.diagnostics.map(describeDiagnostic).join('; ');
      return { callId, kind: LINT, target: selector, result, receipt: null };
    } catch (error) {
      if (o.signal?.aborted) throw o.signal.reason;
      call.ended('failed', (error as Error).message);
      const result = `lint could not run: ${(error as Error).message}`;
      return { callId, kind: LINT, target: selector, result, receipt: null };
    }
  }
}

/** An observation's target: the call's subject, at most 80 characters. */
function targetOf(subject: string): string {
  return subject.length > 80 ? `${subject.slice(0, 77)}...` : subject;
}
