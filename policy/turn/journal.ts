// The run's journal: every observation the loop makes is written to the ledger and told to the
// event stream in one call, so the row and its event cannot drift apart. Events that have no row
// (turn, toolset, proposal, execution, result) go through `emit`.
import type { ChatReply } from '../../runtime/model/types.js';
import type { EventSink, LoopEvent } from '../events.js';
import type { ExecutedLike, LoopRecord, ObservationRowLike } from '../loop-types.js';
import { summarize } from '../observation-text.js';
import { failuresField } from '../test-failures.js';
import type { Rejection } from '../validate.js';
import type { LoopStrategy, Trust } from './strategy.js';
import { z } from 'zod';

export class Journal {
  constructor(
    private readonly record: LoopRecord,
    private readonly sink: EventSink,
    private readonly view: Pick<LoopStrategy, 'trustView'>,
  ) {}

  emit(event: LoopEvent): void {
    this.sink(event);
  }

  /** An executed call's observation, stored as `stored` with the trust gate's verdict. */
  executed(
    turn: number,
    turnId: number | undefined,
    exec: ExecutedLike,
    stored: unknown,
    verdict: { trust: Trust; caveat?: string },
  ): ObservationRowLike {
    const { trust, caveat } = verdict;
    const row = this.record.observe({
      turnId,
      callId: exec.callId,
      kind: exec.kind,
      target: exec.target,
      result: stored,
      trust,
      caveat,
    });
    this.emit({
      type: 'observation',
      turn,
      call_id: exec.callId,
      kind: exec.kind,
      target: exec.target,
      trust: this.view.trustView(trust),
      ...(caveat ? { caveat } : {}),
      summary: summarize(exec.kind, exec.result),
      ...failuresField(exec.kind, exec.result),
    });
    return row;
  }

  /** A reply that held no usable proposal: the turn passes with a no-op. */
  noop(turn: number, turnId: number, reason: string): ObservationRowLike {
    const row = this.note(turnId, 'noop', { noop: true, reason } satisfies NoopNote);
    this.emit({ type: 'noop', turn, reason });
    return row;
  }

  /** A proposal validation rejected: a rejected call row, and the rejection as its observation. */
  rejected(
    turn: number,
    turnId: number,
    callId: string,
    args: unknown,
    rejection: Rejection,
    reselect: boolean,
  ): ObservationRowLike {
    this.record.rejected({
      callId,
      tool: rejection.tool,
      args,
      reason: rejection.reason,
      origin: 'model',
      turnId,
    });
    const row = this.record.observe({
      turnId,
      callId,
      kind: 'rejected',
      target: rejection.tool,
      result: rejection,
      trust: 'trusted',
    });
    this.emit({
      type: 'rejection',
      turn,
      call_id: callId,
      tool: rejection.tool,
      reason: rejection.reason,
      reselect,
    });
    return row;
  }

  stopped(turnId: number, reason: string): void {
    this.note(turnId, 'stop', { reason } satisfies StopNote);
  }

  asked(turn: number, turnId: number, question: string): void {
    this.note(turnId, 'ask_user', { question } satisfies AskUserNote);
    this.emit({ type: 'ask_user', turn, question });
  }

  /** The operator's answer: in the turn that asked, or (on resume) before the first turn. */
  answered(turn: number, turnId: number | undefined, answer: string): ObservationRowLike {
    const row = this.note(turnId, 'user', { answer } satisfies AnswerNote);
    this.emit({ type: 'answer', turn, answer });
    return row;
  }

  /** A model reply's spend, and the run's totals after it. */
  usage(turn: number, reply: ChatReply): void {
    this.record.usage(reply.usage.promptTokens, reply.usage.completionTokens, reply.costUsd);
    const spent = this.record.totals();
    this.emit({
      type: 'usage',
      turn,
      tokens_in: reply.usage.promptTokens,
      tokens_out: reply.usage.completionTokens,
      cost_usd: reply.costUsd,
      total_tokens: spent.tokens,
      total_cost_usd: spent.costUsd,
    });
  }

  /** An observation of the harness's own (no call behind it), always trusted. */
  private note(turnId: number | undefined, kind: string, result: unknown): ObservationRowLike {
    return this.record.observe({ turnId, kind, target: '', result, trust: 'trusted' });
  }
}

// ---- harness notes ---------------------------------------------------------------------------------
// The observations the harness writes of its own, with no tool call behind them:
// a no-op turn, a stop, the model's question, the operator's answer, a refused edit. Declared once
// here: the journal writes these shapes and `resume`, `replay` and `ledger show` read them back.
/** @public Row schema of a harness note, kept for its type (NoopNote). */
export const noopNoteSchema = z.object({ noop: z.literal(true), reason: z.string() });
/** @public Row schema of a harness note, kept for its type (StopNote). */
export const stopNoteSchema = z.object({ reason: z.string() });
export const askUserNoteSchema = z.object({ question: z.string() });
export const answerNoteSchema = z.object({ answer: z.string() });
/**
 * The authorization stage's refusal: its reason is the edit envelope's error.
 * @public Row schema of a harness note, kept for its type (DeniedNote).
 */
export const deniedNoteSchema = z.object({ denied: z.literal(true), reason: z.string().nullable() });

type NoopNote = z.output<typeof noopNoteSchema>;
type StopNote = z.output<typeof stopNoteSchema>;
type AskUserNote = z.output<typeof askUserNoteSchema>;
type AnswerNote = z.output<typeof answerNoteSchema>;
export type DeniedNote = z.output<typeof deniedNoteSchema>;
