// One run's view of the ledger, for the loop: turns, rejections, observations, usage, the run's
// outcome, and the two questions the final screen asks of the record — did the repro test pass in
// the sandbox after the last edit, and what is the run's diff. Answers come from rows, not memory.
import type { CallOrigin } from './call-row.js';
import type { LanguageId } from '../language/language.js';
import { editsForRun } from './edits.js';
import type { Ledger } from './ledger.js';
import type { NewObservation, ObservationRow } from './observation-row.js';
import { newPromptBoundary, storePrompt } from './prompts.js';
import { testVerdict } from '../test-output/test-verdict.js';
import { SANDBOX_TOOL } from './sandbox-tools.js';
import {
  completeTurn,
  nextTurnIndex,
  recentObservations,
  recordObservation,
  recordTurn,
  type TurnReply,
  type TurnStart,
} from './turns.js';
import { addUsage, endRun, getRun } from './runs.js';
import { newCallId, recordRejectedCall } from './calls.js';

/** A proposal validation rejected, as the run records it: never executed, with the reason. */
export interface RejectedProposal {
  /** The id its proposal announced (newCallId()); absent: a fresh one. */
  callId?: string;
  tool: string;
  args: unknown;
  reason: string;
  origin: CallOrigin;
  turnId?: number;
}

export class RunRecord {
  private boundary: string | null = null;

  constructor(
    readonly ledger: Ledger,
    readonly runId: string,
    readonly owner: string,
    /** The repository's language: whose runners' output the repro verdict reads. */
    readonly language: LanguageId = 'python',
  ) {}

  /**
   * The boundary the run's prompts fence untrusted text with, as its row keeps it. A run recorded
   * before boundaries were kept gets one now, kept from then on.
   */
  get promptBoundary(): string {
    if (this.boundary !== null) return this.boundary;
    const db = this.ledger.database;
    db.prepare(`UPDATE runs SET prompt_boundary = ? WHERE id = ? AND prompt_boundary IS NULL`).run(
      newPromptBoundary(),
      this.runId,
    );
    const row = db.prepare(`SELECT prompt_boundary FROM runs WHERE id = ?`).get(this.runId) as {
      prompt_boundary: string;
    };
    this.boundary = row.prompt_boundary;
    return this.boundary;
  }

  /** The turn's row, written before the model call, with the prompt it sends when one is given. */
  startTurn(t: TurnStart): number {
    const turnId = recordTurn(this.ledger, {
      runId: this.runId,
      idx: nextTurnIndex(this.ledger, this.runId),
      toolset: t.toolset,
      promptDigest: t.promptDigest,
      promptTokens: t.promptTokens,
      completionTokens: 0,
      rawOutput: null,
      action: null,
    });
    if (t.messages)
      storePrompt(this.ledger, turnId, { messages: [...t.messages], tools: t.tools ? [...t.tools] : null });
    return turnId;
  }

  completeTurn(turnId: number, reply: TurnReply): void {
    completeTurn(this.ledger, turnId, reply);
  }

  newCallId(): string {
    return newCallId();
  }

  rejected(r: RejectedProposal): string {
    const { callId, ...call } = r;
    return recordRejectedCall(this.ledger, { ...call, id: callId, runId: this.runId, owner: this.owner });
  }

  observe(o: NewObservation): ObservationRow {
    return recordObservation(this.ledger, { ...o, runId: this.runId });
  }

  recent(n: number): ObservationRow[] {
    return recentObservations(this.ledger, this.runId, n);
  }

  usage(tokensIn: number, tokensOut: number, costUsd: number | null): void {
    addUsage(this.ledger, this.runId, tokensIn, tokensOut, costUsd);
  }

  totals(): { tokens: number; costUsd: number | null } {
    const row = getRun(this.ledger, this.runId)!;
    return { tokens: row.tokens_in + row.tokens_out, costUsd: row.cost_usd };
  }

  end(outcome: string, reason: string): void {
    endRun(this.ledger, this.runId, outcome, reason);
  }

  /**
   * Whether the repro target passed in the sandbox after the run's last committed edit: a completed
   * run_test call of this run, made after that edit, whose recorded run is a pass by piper's own
   * reading of it (exit code 0 and tests ran and passed: runtime/test-output/test-verdict.ts). With
   * no repro target, any run_test after the last edit counts. No edit → false (nothing was fixed).
   */
  verified(reproTarget: string | null): boolean {
    return this.reproVerdict(reproTarget).verified;
  }

  /** verified(), and when not, why not (null: no run_test after the last edit, or no edit). */
  reproVerdict(reproTarget: string | null): { verified: boolean; why: string | null } {
    const edits = editsForRun(this.ledger, this.runId);
    const last = edits.at(-1);
    if (!last) return { verified: false, why: null };
    const rows = this.ledger.database
      .prepare(
        `SELECT c.args, e.exit_code, e.timed_out, e.stdout, e.stderr FROM calls c JOIN executions e ON e.call_id = c.id
         WHERE c.run_id = ? AND c.tool = ? AND c.status = 'completed' AND c.created_at >= ?
         ORDER BY c.created_at DESC, c.rowid DESC`,
      )
      .all(this.runId, SANDBOX_TOOL.test, last.created_at) as Array<{
      args: string;
      exit_code: number;
      timed_out: number;
      stdout: string;
      stderr: string;
    }>;
    const latest = rows.find(
      (r) =>
        reproTarget === null ||
        (JSON.parse(r.args) as { target?: string }).target?.trim() === reproTarget.trim(),
    );
    if (!latest) return { verified: false, why: null };
    const verdict = testVerdict({ ...latest, timed_out: latest.timed_out === 1 }, this.language);
    return verdict.pass
      ? { verified: true, why: null }
      : { verified: false, why: `the repro test's last run after the last edit is no pass: ${verdict.why}` };
  }

  /** Keeps what `resume` needs (turns used, trigger memory) in the run's config under `loop_state`. */
  saveState(state: unknown): void {
    const row = getRun(this.ledger, this.runId)!;
    const config = row.config ? (JSON.parse(row.config) as Record<string, unknown>) : {};
    config.loop_state = state;
    this.ledger.database
      .prepare(`UPDATE runs SET config = ? WHERE id = ?`)
      .run(JSON.stringify(config), this.runId);
  }

  /** The run's committed (not undone) edits, in order, as one diff. */
  diff(): string {
    return editsForRun(this.ledger, this.runId)
      .map((e) => e.diff)
      .join('');
  }
}
