// The runs of the ledger (docs/ledger.md, "runs"): creating and ending one, its usage totals,
// listing them (`ledger runs`) and reopening a run that `resume` continues. Reopening is the one
// place a run's outcome is cleared; endRun only ever writes an outcome once, so without it a
// resumed run could never record how it really ended.
import { randomBytes } from 'node:crypto';
import { RuntimeError } from '../errors.js';
import type { Ledger } from './ledger.js';
import { newPromptBoundary } from './prompts.js';
import type { RunRow } from './run-row.js';
import type { SandboxToolName } from './sandbox-tools.js';

export interface NewRun {
  /** `tool`: one `piper-agent tool` call, ended with it; a sandbox tool's name: one `run-test` or `execute`. */
  kind: 'fix' | 'tool' | SandboxToolName;
  repo: string;
  owner: string;
  issue?: string;
  head?: string;
  model?: string;
  policy?: string;
  config?: unknown;
  /** The prompt boundary to keep (a replay keeps the recorded run's); default: a fresh one. */
  promptBoundary?: string;
}

const now = () => new Date().toISOString();

function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `r-${stamp}-${randomBytes(3).toString('hex')}`;
}

export function createRun(ledger: Ledger, run: NewRun): string {
  const id = newRunId();
  ledger.database
    .prepare(
      `INSERT INTO runs (id, kind, issue, repo, head, model, policy, config, owner, started_at, prompt_boundary)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      run.kind,
      run.issue ?? null,
      run.repo,
      run.head ?? null,
      run.model ?? null,
      run.policy ?? null,
      run.config === undefined ? null : JSON.stringify(run.config),
      run.owner,
      now(),
      run.promptBoundary ?? newPromptBoundary(),
    );
  return id;
}

export function endRun(ledger: Ledger, id: string, outcome: string, reason?: string): void {
  ledger.database
    .prepare(`UPDATE runs SET outcome = ?, outcome_reason = ?, ended_at = ? WHERE id = ? AND outcome IS NULL`)
    .run(outcome, reason ?? null, now(), id);
}

export function getRun(ledger: Ledger, id: string): RunRow | undefined {
  return ledger.database.prepare(`SELECT * FROM runs WHERE id = ?`).get(id) as RunRow | undefined;
}

/** Run totals the loop keeps current after every model call. */
export function addUsage(
  ledger: Ledger,
  runId: string,
  tokensIn: number,
  tokensOut: number,
  costUsd: number | null,
): void {
  ledger.database
    .prepare(
      `UPDATE runs SET tokens_in = tokens_in + ?, tokens_out = tokens_out + ?,
           cost_usd = CASE WHEN ? IS NULL THEN cost_usd ELSE COALESCE(cost_usd, 0) + ? END WHERE id = ?`,
    )
    .run(tokensIn, tokensOut, costUsd, costUsd, runId);
}

export type RunSummaryRow = Pick<
  RunRow,
  | 'id'
  | 'kind'
  | 'issue'
  | 'repo'
  | 'model'
  | 'policy'
  | 'outcome'
  | 'tokens_in'
  | 'tokens_out'
  | 'cost_usd'
  | 'started_at'
  | 'ended_at'
  | 'config'
> & {
  /** Turn rows (one per model call attempt), for runs that saved no loop state. */
  turn_rows: number;
};

/** Runs, newest first. */
export function listRuns(ledger: Ledger, options: { limit?: number } = {}): RunSummaryRow[] {
  return ledger.database
    .prepare(
      `SELECT r.id, r.kind, r.issue, r.repo, r.model, r.policy, r.outcome, r.tokens_in, r.tokens_out, r.cost_usd,
              r.started_at, r.ended_at, r.config,
              (SELECT COUNT(*) FROM turns t WHERE t.run_id = r.id) AS turn_rows
       FROM runs r ORDER BY r.started_at DESC, r.rowid DESC LIMIT ?`,
    )
    .all(options.limit ?? -1) as RunSummaryRow[];
}

export interface Reopened {
  previousOutcome: string | null;
  previousReason: string | null;
}

/**
 * Makes an ended (or abandoned) run current again for `owner`: outcome cleared, owner replaced so
 * the start-up sweep sees a live process, and the previous ending kept in the config's `resumes`
 * list. `expectOutcome` is the outcome the caller saw: if another process changed the run since
 * (a second resume got there first), nothing changes and a ledger_error says so.
 */
export function reopenRun(
  ledger: Ledger,
  runId: string,
  owner: string,
  expectOutcome: string | null,
): Reopened {
  const db = ledger.database;
  return db.transaction((): Reopened => {
    const row = db.prepare(`SELECT outcome, outcome_reason, config FROM runs WHERE id = ?`).get(runId) as
      { outcome: string | null; outcome_reason: string | null; config: string | null } | undefined;
    if (!row) throw new RuntimeError('ledger_error', `no run ${runId} in the ledger`);
    if (row.outcome !== expectOutcome) {
      throw new RuntimeError(
        'ledger_error',
        `run ${runId} changed while it was being resumed (outcome ${row.outcome ?? 'none'}, expected ${expectOutcome ?? 'none'})`,
        'look at it with `piper-agent ledger show RUN` and resume again if it still needs it',
      );
    }
    const config = row.config ? (JSON.parse(row.config) as Record<string, unknown>) : {};
    const resumes = Array.isArray(config.resumes) ? (config.resumes as unknown[]) : [];
    resumes.push({
      at: new Date().toISOString(),
      owner,
      previous_outcome: row.outcome,
      previous_reason: row.outcome_reason,
    });
    config.resumes = resumes;
    db.prepare(
      `UPDATE runs SET outcome = NULL, outcome_reason = NULL, ended_at = NULL, owner = ?, config = ? WHERE id = ?`,
    ).run(owner, JSON.stringify(config), runId);
    return { previousOutcome: row.outcome, previousReason: row.outcome_reason };
  })();
}

/**
 * Puts back the ending a reopened run had, when the resume failed before its loop started. A run
 * that had none (its process died unswept) is marked interrupted, as the sweep would have.
 */
export function restoreEnding(ledger: Ledger, runId: string, ending: Reopened): void {
  const outcome = ending.previousOutcome ?? 'interrupted';
  const reason = ending.previousOutcome === null ? 'the process running it died' : ending.previousReason;
  ledger.database
    .prepare(`UPDATE runs SET outcome = ?, outcome_reason = ?, ended_at = ? WHERE id = ? AND outcome IS NULL`)
    .run(outcome, reason, new Date().toISOString(), runId);
}
