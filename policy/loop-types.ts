// The loop's injected effects and options: what it needs of the workspace, of the ledger, of the
// model and of the operator. Implemented by primitives/tool-runner.ts, runtime/ledger/run-record.ts,
// the model clients and the CLI; the loop itself sees only these shapes.
import type { ExecutedCall } from '../primitives/tool-runner.js';
import type { ToolCall } from '../primitives/tools/all-tools.js';
import type { NewObservation, ObservationRow } from '../runtime/ledger/observation-row.js';
import type { RejectedProposal } from '../runtime/ledger/run-record.js';
import type { TurnReply, TurnStart } from '../runtime/ledger/turns.js';
import type { DispatchOptions } from '../runtime/ledger/dispatch.js';
import type { Sampling } from '../runtime/model/sampling.js';
import type { LanguageId } from '../runtime/language/language.js';
import type { ChatModel } from '../runtime/model/types.js';
import type { Budget } from './caps.js';
import type { EventSink } from './events.js';
import type { LoopSettings } from './loop-settings.js';
import type { Embedder, RetrievalMode } from './retrieve.js';
import type { LoopState } from './loop-state.js';

export type { LoopState };

/** What the loop needs of the tool runner (primitives/tool-runner.ts implements it). */
export interface LoopTools {
  selectorExists(selector: string): boolean;
  hasEvidence(selector: string): boolean;
  run(
    call: ToolCall,
    origin: 'model' | 'trigger',
    turnId?: number,
    /** The id the call's proposal announced, and the hook told once its ledger row exists. */
    dispatch?: DispatchOptions,
  ): Promise<ExecutedLike>;
  lintFile(
    selector: string,
    path: string,
    turnId?: number,
    dispatch?: DispatchOptions,
  ): Promise<ExecutedLike>;
}

/** One executed call as the tool runner returns it (primitives/tools/tool.ts declares it). */
export type ExecutedLike = ExecutedCall;

/** An observation row as much as the loop reads back of it (the in-memory record keeps no more). */
export type ObservationRowLike = Pick<
  ObservationRow,
  'id' | 'kind' | 'target' | 'result' | 'trust' | 'caveat'
>;

/** What the loop needs of the ledger (runtime/ledger/run-record.ts implements it). */
export interface LoopRecord {
  runId: string;
  /** The run's prompt boundary (policy/fence.ts), the same for every turn and every resume. */
  readonly promptBoundary: string;
  /** A call id taken ahead of its row: the proposal event names the call before it is dispatched. */
  newCallId(): string;
  /** Writes the turn's row and keeps the exact prompt it sends (messages and native tool specs). */
  startTurn(t: TurnStart): number;
  completeTurn(turnId: number, reply: TurnReply): void;
  rejected(r: RejectedProposal): string;
  observe(o: NewObservation): ObservationRowLike;
  recent(n: number): ObservationRowLike[];
  usage(tokensIn: number, tokensOut: number, costUsd: number | null): void;
  totals(): { tokens: number; costUsd: number | null };
  end(outcome: string, reason: string): void;
  /** Whether the repro test passed after the last edit, by the ledger; when not, why (null: no such run). */
  reproVerdict(reproTarget: string | null): { verified: boolean; why: string | null };
  diff(): string;
  saveState(state: LoopState): void;
}

export interface LoopDeps {
  model: ChatModel;
  tools: LoopTools;
  record: LoopRecord;
  emit: EventSink;
  /** Interactive answer to ask_user; null (or absent) ends the run with outcome ask_user. */
  askUser?: (question: string) => Promise<string | null>;
  embedder?: Embedder;
  clock?: () => number;
  signal?: AbortSignal;
}

export interface LoopOptions {
  issueText: string;
  /** The repository's language profile, for what the prompt calls the repository; default 'python'. */
  language?: LanguageId;
  /** The loop this run is (loop-settings.ts: the spec's, the baseline, or one with a gate ablated). */
  settings: LoopSettings;
  reproTarget: string | null;
  budget: Budget;
  symbolCamel?: boolean;
  retrieve?: RetrievalMode;
  /** The selection step's sampling; default the policy's greedy SELECTION_SAMPLING (prompt.ts). */
  sampling?: Sampling;
  /** Continuing a run: its saved state, and the operator's answer to its question. */
  resume?: { state: LoopState; answer?: string };
}
