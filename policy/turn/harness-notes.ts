// The observations the harness writes of its own, with no tool call behind them (turn/journal.ts):
// a no-op turn, a stop, the model's question, the operator's answer, a refused edit. Declared once
// here: the journal writes these shapes and `resume`, `replay` and `ledger show` read them back.
import { z } from 'zod';

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

export type NoopNote = z.output<typeof noopNoteSchema>;
export type StopNote = z.output<typeof stopNoteSchema>;
export type AskUserNote = z.output<typeof askUserNoteSchema>;
export type AnswerNote = z.output<typeof answerNoteSchema>;
export type DeniedNote = z.output<typeof deniedNoteSchema>;
