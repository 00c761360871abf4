// The loop's effects held in memory: a LoopRecord and LoopTools over plain arrays, with each tool's
// result supplied by the caller. The loop runs over them with no SQLite, code index, lint process or
// sandbox, so its own rules (phases, rejections, triggers, trust gate, caps) can be exercised and
// timed alone: the pure loop test and bench/loop-overhead.ts both use them.
import type { SandboxVerdict } from '../../primitives/results/sandbox-results.js';
import type { CallOrigin } from '../../runtime/ledger/call-row.js';
import type { DispatchOptions } from '../../runtime/ledger/dispatch.js';
import type { NewObservation } from '../../runtime/ledger/observation-row.js';
import type { RejectedProposal } from '../../runtime/ledger/run-record.js';
import type { TurnReply, TurnStart } from '../../runtime/ledger/turns.js';
import type {
  ExecutedLike,
  LoopRecord,
  LoopState,
  LoopTools,
  ObservationRowLike,
} from '../../policy/loop-types.js';
import {
  callSubject,
  observationKind,
  type ToolCall,
  type ToolName,
} from '../../primitives/tools/all-tools.js';
import { editEntityTool } from '../../primitives/tools/edit-entity/tool.js';
import { readEntityTool } from '../../primitives/tools/read-entity/tool.js';
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { isRecord } from '../../runtime/text/is-record.js';

export interface MemoryTurn {
  id: number;
  toolset: string[];
  rawOutput: string | null;
  action: unknown;
}

export interface MemoryCall {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  origin: CallOrigin;
  turnId: number | undefined;
  verdict: 'rejected' | 'executed';
  receipt: SandboxVerdict | null;
}

/** What one run wrote: the in-memory ledger both the record and the tools below write to. */
export class MemoryRun {
  readonly turns: MemoryTurn[] = [];
  readonly calls: MemoryCall[] = [];
  readonly observations: Array<ObservationRowLike & { turnId: number | undefined; callId: string | null }> =
    [];
  readonly edits: Array<{ editId: string; selector: string; path: string; callIndex: number }> = [];
  readonly evidence = new Set<string>();
  tokens = 0;
  costUsd: number | null = 0;
  ending: { outcome: string; reason: string } | null = null;
  saved: LoopState | null = null;
  private issued = 0;

  /** Counted, not random: the in-memory run is deterministic. Taken ahead of its row, like the ledger's. */
  newCallId(): string {
    return `call-${++this.issued}`;
  }

  addCall(call: Omit<MemoryCall, 'id'>, id: string = this.newCallId()): string {
    this.calls.push({ id, ...call });
    return id;
  }
}

export class MemoryRecord implements LoopRecord {
  readonly runId = 'memory-run';
  /** A fixed boundary: the in-memory loop's prompts are as deterministic as its clock. */
  readonly promptBoundary = '0123456789abcdef0123456789abcdef';
  constructor(readonly run: MemoryRun = new MemoryRun()) {}

  newCallId(): string {
    return this.run.newCallId();
  }

  startTurn(t: TurnStart): number {
    const id = this.run.turns.length + 1;
    this.run.turns.push({ id, toolset: t.toolset, rawOutput: null, action: null });
    return id;
  }

  completeTurn(turnId: number, reply: TurnReply): void {
    const turn = this.run.turns[turnId - 1]!;
    turn.rawOutput = reply.rawOutput;
    turn.action = reply.action;
  }

  rejected(r: RejectedProposal): string {
    const args = (r.args ?? {}) as Record<string, unknown>;
    const { callId, tool, origin, turnId } = r;
    return this.run.addCall({ tool, args, origin, turnId, verdict: 'rejected', receipt: null }, callId);
  }

  observe(o: NewObservation): ObservationRowLike {
    const row = {
      id: this.run.observations.length + 1,
      turnId: o.turnId,
      callId: o.callId ?? null,
      kind: o.kind,
      target: o.target ?? null,
      result: JSON.stringify(o.result),
      trust: o.trust,
      caveat: o.caveat ?? null,
    };
    this.run.observations.push(row);
    return row;
  }

  recent(n: number): ObservationRowLike[] {
    return this.run.observations.slice(-n);
  }

  usage(tokensIn: number, tokensOut: number, costUsd: number | null): void {
    this.run.tokens += tokensIn + tokensOut;
    this.run.costUsd = costUsd === null || this.run.costUsd === null ? null : this.run.costUsd + costUsd;
  }

  totals(): { tokens: number; costUsd: number | null } {
    return { tokens: this.run.tokens, costUsd: this.run.costUsd };
  }

  end(outcome: string, reason: string): void {
    this.run.ending = { outcome, reason };
  }

  /** As the ledger answers it: a run_test after the last committed edit, exit 0, on the repro target. */
  reproVerdict(reproTarget: string | null): { verified: boolean; why: string | null } {
    const last = this.run.edits.at(-1);
    if (!last) return { verified: false, why: null };
    const tests = this.run.calls
      .slice(last.callIndex + 1)
      .filter((c) => c.tool === runTestTool.name && c.receipt !== null)
      .filter((c) => reproTarget === null || String(c.args.target).trim() === reproTarget.trim());
    return { verified: tests.at(-1)?.receipt?.exit_code === 0, why: null };
  }

  diff(): string {
    return this.run.edits.map((e) => `edit ${e.editId} of ${e.selector} in ${e.path}\n`).join('');
  }

  saveState(state: LoopState): void {
    this.run.saved = state;
  }
}

/** A tool's answer to one call: its result as captured, and the sandbox receipt for run_test/execute. */
export interface ToolAnswer {
  result: unknown;
  receipt?: SandboxVerdict | null;
}

export interface MemoryWorld {
  /** The selectors the code index holds. */
  selectors: readonly string[];
  /** The result of each executed call; what the primitives would have captured. */
  answer(tool: ToolName, args: Record<string, unknown>): ToolAnswer;
  /** The harness lint's verdict on a committed file (default `clean`). */
  lint?(path: string): string;
}

export class MemoryTools implements LoopTools {
  constructor(
    readonly world: MemoryWorld,
    readonly ledger: MemoryRun,
  ) {}

  selectorExists(selector: string): boolean {
    return this.world.selectors.includes(selector);
  }

  hasEvidence(selector: string): boolean {
    return this.ledger.evidence.has(selector);
  }

  run(
    call: ToolCall,
    origin: 'model' | 'trigger',
    turnId?: number,
    dispatch: DispatchOptions = {},
  ): Promise<ExecutedLike> {
    const { result, receipt = null } = this.world.answer(call.tool, call.args);
    const callId = this.ledger.addCall(
      { ...call, origin, turnId, verdict: 'executed', receipt },
      dispatch.callId,
    );
    dispatch.onDispatched?.(callId);
    const kind = observationKind(call.tool, origin);
    const target = callSubject(call.tool, call.args);
    for (const selector of citedSelectors(call, result)) this.ledger.evidence.add(selector);
    const exec: ExecutedLike = { callId, kind, target, result, receipt };
    if (call.tool === editEntityTool.name && committed(result)) {
      const selector = String(call.args.selector);
      const editId = String(this.ledger.edits.length + 1);
      const path = `${selector.split('.').slice(0, -1).join('/')}.py`;
      this.ledger.edits.push({ editId, selector, path, callIndex: this.ledger.calls.length - 1 });
      exec.edit = { editId, selector, path };
    }
    return Promise.resolve(exec);
  }

  lintFile(
    selector: string,
    path: string,
    turnId?: number,
    dispatch: DispatchOptions = {},
  ): Promise<ExecutedLike> {
    const callId = this.ledger.addCall(
      {
        tool: 'lint',
        args: { selector, path },
        origin: 'trigger',
        turnId,
        verdict: 'executed',
        receipt: null,
      },
      dispatch.callId,
    );
    dispatch.onDispatched?.(callId);
    const result = this.world.lint?.(path) ?? 'clean';
    return Promise.resolve({ callId, kind: 'lint', target: selector, result, receipt: null });
  }
}

function committed(result: unknown): boolean {
  return isRecord(result) && isRecord(result.data) && result.data.committed === true;
}

/** The selectors a read or search result cites: what the evidence gate accepts for an edit. */
function citedSelectors(call: ToolCall, result: unknown): string[] {
  if (!isRecord(result) || result.ok !== true || !isRecord(result.data)) return [];
  if (call.tool === readEntityTool.name) return [call.args.selector];
  const listed = result.data.matches ?? result.data.results;
  return Array.isArray(listed) ? listed.flatMap((m) => (isRecord(m) ? [String(m.selector)] : [])) : [];
}
