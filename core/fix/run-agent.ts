// The part of a `fix` run after its `init` event: the code index, the lint gate, the workspace and
// the loop. run-fix.ts imports this module only once `init` is written, so a run's first event
// waits neither for these modules (tree-sitter, the policy, the primitives) nor for the index build.
import { createEditAuthorizer, type ApprovalMode, type AskApproval } from '../../policy/approval.js';
import type { EventSink, RunResult } from '../../policy/events.js';
import { runLoop, type LoopOptions, type LoopTools } from '../../policy/loop.js';
import type { Embedder } from '../../policy/retrieve.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { sandboxTscRunner } from '../../primitives/lint/tsc-sandbox.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { ToolRunner } from '../../primitives/tool-runner.js';
import { recordApproval } from '../../runtime/ledger/approvals.js';
import type { RunRecord } from '../../runtime/ledger/run-record.js';
import type { ChatModel } from '../../runtime/model/types.js';
import type { Session } from '../session.js';
import { sessionToolOptions } from '../session-tools.js';

export interface AgentRun {
  session: Session;
  repo: string;
  record: RunRecord;
  model: ChatModel;
  emit: EventSink;
  askUser?: (question: string) => Promise<string | null>;
  /** Aborted: the loop stops at its next step and the workspace dispatches and writes nothing more. */
  signal?: AbortSignal;
  wrapTools?: (tools: LoopTools) => LoopTools;
  embedder?: Embedder;
  retrieve: 'lexical' | 'embed';
  approval: { mode: ApprovalMode; ask?: AskApproval };
  loop: LoopOptions;
}

export async function runAgent(run: AgentRun): Promise<RunResult> {
  const { session, record } = run;
  // A TypeScript project's edits are checked by its own tsc too, in its environment.
  const typescript = session.environment?.jsPlan?.typescript === true;
  const lint = new LintGate({
    sandbox: { runtime: session.sandbox.runtime },
    language: session.language.id,
    ...(typescript ? { typeCheck: sandboxTscRunner(session.sandbox, run.repo) } : {}),
  });
  try {
    // Said before and after: the build is synchronous, and a large repository takes seconds.
    run.emit({ type: 'index', phase: 'started' });
    const index = await CodeIndex.open(run.repo, session.ledger, { language: session.language.id });
    const built = index.lastUpdate;
    run.emit({
      type: 'index',
      phase: 'finished',
      files: built.files,
      entities: built.entities,
      parsed: built.parsed,
      seconds: Math.round(built.ms) / 1000,
    });
    const authorizeEdit = createEditAuthorizer({
      mode: run.approval.mode,
      ask: run.approval.ask,
      record: (decision) => recordApproval(session.ledger, { ...decision, runId: record.runId }),
    });
    const tools = new ToolRunner({
      ...sessionToolOptions(session, record.runId),
      index,
      lint,
      embedder: run.embedder,
      retrieve: run.retrieve,
      authorizeEdit,
      signal: run.signal,
    });
    return await runLoop(
      {
        model: run.model,
        tools: run.wrapTools ? run.wrapTools(tools) : tools,
        record,
        emit: run.emit,
        askUser: run.askUser,
        embedder: run.embedder,
        signal: run.signal,
      },
      { ...run.loop, language: run.loop.language ?? session.language.id },
    );
  } finally {
    await lint.close();
  }
}
