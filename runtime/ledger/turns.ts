// Turns and observations of a run: what the model was shown and said, and what it observed.
// The loop writes these; the prompt's history and the CLI's `ledger show` read them back, so what
// the model sees is rendered from these rows, never from in-memory values.
import type { Attempt, ChatMessage, ToolSpec } from '../model/types.js';
import type { CallRow } from './call-row.js';
import type { Ledger } from './ledger.js';
import type { NewObservation, ObservationRow } from './observation-row.js';
import type { TurnRow } from './turn-row.js';

export interface TurnRecord {
  runId: string;
  idx: number;
  toolset: string[];
  promptDigest: string;
  promptTokens: number;
  completionTokens: number;
  rawOutput: string | null;
  action: unknown;
}

const now = () => new Date().toISOString();

export function recordTurn(ledger: Ledger, turn: TurnRecord): number {
  const info = ledger.database
    .prepare(
      `INSERT INTO turns (run_id, idx, toolset, prompt_digest, prompt_tokens, completion_tokens, raw_output, action, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      turn.runId,
      turn.idx,
      JSON.stringify(turn.toolset),
      turn.promptDigest,
      turn.promptTokens,
      turn.completionTokens,
      turn.rawOutput,
      turn.action === undefined || turn.action === null ? null : JSON.stringify(turn.action),
      now(),
    );
  return Number(info.lastInsertRowid);
}

/** What a turn row starts with, before the model call: the retrieved tools and the prompt sent. */
export interface TurnStart {
  toolset: string[];
  promptDigest: string;
  promptTokens: number;
  /** The exact prompt (messages and native tool specs), kept content-addressed (prompts.ts). */
  messages?: readonly ChatMessage[];
  tools?: readonly ToolSpec[] | null;
}

/** What a turn row gets once the model has answered. */
export interface TurnReply {
  rawOutput: string | null;
  action: unknown;
  promptTokens: number;
  completionTokens: number;
  /** The model call's HTTP attempts, retries included. */
  attempts?: readonly Attempt[];
}

/** A turn's model reply arrives after the row exists (the row is written before the model call). */
export function completeTurn(ledger: Ledger, turnId: number, reply: TurnReply): void {
  ledger.database
    .prepare(
      `UPDATE turns SET raw_output = ?, action = ?, prompt_tokens = ?, completion_tokens = ?, attempts = ? WHERE id = ?`,
    )
    .run(
      reply.rawOutput,
      reply.action === undefined || reply.action === null ? null : JSON.stringify(reply.action),
      reply.promptTokens,
      reply.completionTokens,
      reply.attempts === undefined ? null : JSON.stringify(reply.attempts),
      turnId,
    );
}

export function recordObservation(ledger: Ledger, o: NewObservation & { runId: string }): ObservationRow {
  const info = ledger.database
    .prepare(
      `INSERT INTO observations (run_id, turn_id, call_id, kind, target, result, trust, caveat, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      o.runId,
      o.turnId ?? null,
      o.callId ?? null,
      o.kind,
      o.target ?? null,
      JSON.stringify(o.result),
      o.trust,
      o.caveat ?? null,
      now(),
    );
  return ledger.database
    .prepare(`SELECT * FROM observations WHERE id = ?`)
    .get(info.lastInsertRowid) as ObservationRow;
}

/** The last `n` observations of a run, oldest first. */
export function recentObservations(ledger: Ledger, runId: string, n: number): ObservationRow[] {
  const rows = ledger.database
    .prepare(`SELECT * FROM observations WHERE run_id = ? ORDER BY id DESC LIMIT ?`)
    .all(runId, n) as ObservationRow[];
  return rows.reverse();
}

export function observationsOf(ledger: Ledger, runId: string): ObservationRow[] {
  return ledger.database
    .prepare(`SELECT * FROM observations WHERE run_id = ? ORDER BY id`)
    .all(runId) as ObservationRow[];
}

export function turnsOf(ledger: Ledger, runId: string): TurnRow[] {
  return ledger.database.prepare(`SELECT * FROM turns WHERE run_id = ? ORDER BY idx`).all(runId) as TurnRow[];
}

export function callsOf(ledger: Ledger, runId: string): CallRow[] {
  return ledger.database
    .prepare(`SELECT * FROM calls WHERE run_id = ? ORDER BY created_at, rowid`)
    .all(runId) as CallRow[];
}

export function nextTurnIndex(ledger: Ledger, runId: string): number {
  const row = ledger.database.prepare(`SELECT MAX(idx) AS m FROM turns WHERE run_id = ?`).get(runId) as {
    m: number | null;
  };
  return (row.m ?? -1) + 1;
}
