// The SQLite ledger (docs/ledger.md): the single record of what ran. better-sqlite3 is
// imported here and nowhere else. WAL lets a reader (`piper-agent log`, a second run) look while a
// run writes; every write that belongs to one call is one transaction.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { RuntimeError } from '../errors.js';
import { adoptOwner, type FileOwner } from '../host/checkout-owner.js';
import { makeStateDirectory } from '../host/piper-directory.js';
import type { Receipt } from '../sandbox/spec.js';
import type { CallOrigin, CallRow, CallStatus } from './call-row.js';
import type { ExecutionRow } from './execution-row.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { ledgerFailure, unwritableLedger } from './open-error.js';
import { newPromptBoundary } from './prompts.js';
import type { SandboxToolName } from './sandbox-tools.js';

export type { CallOrigin, CallRow, CallStatus } from './call-row.js';

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

export class Ledger {
  private constructor(
    readonly path: string,
    private readonly db: Database.Database,
  ) {}

  static open(path: string): Ledger {
    let db: Database.Database | undefined;
    let fileOwner: FileOwner | null = null;
    let created = false;
    try {
      if (path !== ':memory:') {
        // Run as root on someone else's checkout, the ledger is theirs like its directory.
        fileOwner = makeStateDirectory(dirname(path));
        created = !existsSync(path);
        // SQLite opens a file it may not write and fails only at the first write, mid-run.
        if (existsSync(path) && !statSync(path).isDirectory()) {
          try {
            accessSync(path, constants.R_OK | constants.W_OK);
          } catch (error) {
            throw unwritableLedger(path, error);
          }
        }
      }
      db = new Database(path);
      // Before WAL mode: SQLite, run as root, gives the -wal and -shm it creates later the database
      // file's owner itself (os_unix.c robustFchown), so the main file is the one to hand over.
      if (created) adoptOwner(path, fileOwner);
      db.pragma('journal_mode = WAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
      const ledger = new Ledger(path, db);
      ledger.migrate();
      if (created)
        for (const side of ['-wal', '-shm']) if (existsSync(path + side)) adoptOwner(path + side, fileOwner);
      return ledger;
    } catch (error) {
      if (db?.open) db.close();
      throw (
        ledgerFailure(error, path) ??
        new RuntimeError(
          'ledger_error',
          `cannot open the ledger at ${path}: ${(error as Error).message}`,
          undefined,
          {
            cause: error,
          },
        )
      );
    }
  }

  /**
   * The SQLite handle, for the other modules of runtime/ledger (code nodes, evidence, edits) that
   * keep their own statements beside this class. Nothing outside runtime/ledger may use it.
   */
  get database(): Database.Database {
    return this.db;
  }

  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  get journalMode(): string {
    return this.db.pragma('journal_mode', { simple: true }) as string;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  createRun(run: NewRun): string {
    const id = newRunId();
    this.db
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

  endRun(id: string, outcome: string, reason?: string): void {
    this.db
      .prepare(
        `UPDATE runs SET outcome = ?, outcome_reason = ?, ended_at = ? WHERE id = ? AND outcome IS NULL`,
      )
      .run(outcome, reason ?? null, now(), id);
  }

  getRun(id: string): Record<string, unknown> | undefined {
    return this.db.prepare(`SELECT * FROM runs WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  }

  /**
   * Writes the call as dispatched: this row exists before any container does. `id` is one the
   * caller took from newCallId() ahead of time (the stream names a proposal's call before it runs).
   */
  dispatchCall(call: {
    id?: string;
    runId: string;
    tool: string;
    args: unknown;
    origin: CallOrigin;
    owner: string;
    turnId?: number;
  }): string {
    const id = call.id ?? newCallId();
    const t = now();
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO calls (id, run_id, turn_id, origin, tool, args, verdict, status, owner, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'valid', 'validated', ?, ?, ?)`,
        )
        .run(
          id,
          call.runId,
          call.turnId ?? null,
          call.origin,
          call.tool,
          JSON.stringify(call.args),
          call.owner,
          t,
          t,
        );
      this.setStatus(id, 'dispatched', null);
    })();
    return id;
  }

  containerCreated(callId: string, containerId: string): void {
    this.db
      .prepare(`UPDATE calls SET container_id = ?, updated_at = ? WHERE id = ?`)
      .run(containerId, now(), callId);
  }

  /** The receipt and the call's completion, in one transaction. */
  completeCall(callId: string, receipt: Receipt, envKey: string | null = null): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO executions (call_id, image, image_digest, container_id, warm, limits, create_ms, start_ms,
             run_ms, total_ms, exit_code, timed_out, oom_killed, stdout, stderr, stdout_bytes, stderr_bytes,
             stdout_sha256, stderr_sha256, stdout_truncated, stderr_truncated, created_at, env_key, kill_reason)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          callId,
          receipt.image,
          receipt.image_digest,
          receipt.container_id,
          Number(receipt.warm),
          JSON.stringify(receipt.limits),
          receipt.timings.create_ms,
          receipt.timings.start_ms,
          receipt.timings.run_ms,
          receipt.timings.total_ms,
          receipt.exit_code,
          Number(receipt.timed_out),
          Number(receipt.oom_killed),
          receipt.stdout,
          receipt.stderr,
          receipt.stdout_bytes,
          receipt.stderr_bytes,
          receipt.stdout_sha256,
          receipt.stderr_sha256,
          Number(receipt.stdout_truncated),
          Number(receipt.stderr_truncated),
          now(),
          envKey,
          receipt.kill_reason ?? null,
        );
      this.db.prepare(`UPDATE calls SET container_id = ? WHERE id = ?`).run(receipt.container_id, callId);
      this.setStatus(callId, 'completed', null);
    })();
  }

  /** A call the harness ran without a container (read, search, edit): its result is the observation. */
  markCompleted(callId: string): void {
    this.db.transaction(() => this.setStatus(callId, 'completed', null))();
  }

  /** A proposal that failed validation: recorded with its reason, never executed. */
  recordRejectedCall(call: {
    id?: string;
    runId: string;
    tool: string;
    args: unknown;
    origin: CallOrigin;
    owner: string;
    reason: string;
    turnId?: number;
  }): string {
    const id = call.id ?? newCallId();
    const t = now();
    this.db
      .prepare(
        `INSERT INTO calls (id, run_id, turn_id, origin, tool, args, verdict, reason, status, status_reason, owner, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'rejected', ?, 'not_executed', 'rejected by validation', ?, ?, ?)`,
      )
      .run(
        id,
        call.runId,
        call.turnId ?? null,
        call.origin,
        call.tool,
        JSON.stringify(call.args ?? null),
        call.reason,
        call.owner,
        t,
        t,
      );
    return id;
  }

  /** Run totals the loop keeps current after every model call. */
  addUsage(runId: string, tokensIn: number, tokensOut: number, costUsd: number | null): void {
    this.db
      .prepare(
        `UPDATE runs SET tokens_in = tokens_in + ?, tokens_out = tokens_out + ?,
           cost_usd = CASE WHEN ? IS NULL THEN cost_usd ELSE COALESCE(cost_usd, 0) + ? END WHERE id = ?`,
      )
      .run(tokensIn, tokensOut, costUsd, costUsd, runId);
  }

  /**
   * Ends a call that did not complete: `failed` when it may have run, `not_executed` when it surely
   * did not, `denied` when the approval policy or the user refused it (it surely did not run).
   */
  endCall(callId: string, status: 'failed' | 'not_executed' | 'denied', reason: string): void {
    this.db.transaction(() => this.setStatus(callId, status, reason))();
  }

  getCall(id: string): CallRow | undefined {
    return this.db.prepare(`SELECT * FROM calls WHERE id = ?`).get(id) as CallRow | undefined;
  }

  getExecution(callId: string): ExecutionRow | undefined {
    return this.db.prepare(`SELECT * FROM executions WHERE call_id = ?`).get(callId) as
      ExecutionRow | undefined;
  }

  /** Calls still `dispatched` (or `validated`) and runs without an outcome, of any owner. */
  unfinished(): { calls: CallRow[]; runs: Array<{ id: string; owner: string }> } {
    const calls = this.db
      .prepare(`SELECT * FROM calls WHERE status IN ('validated', 'dispatched')`)
      .all() as CallRow[];
    const runs = this.db.prepare(`SELECT id, owner FROM runs WHERE outcome IS NULL`).all() as Array<{
      id: string;
      owner: string;
    }>;
    return { calls, runs };
  }

  private setStatus(callId: string, status: CallStatus, reason: string | null): void {
    const result = this.db
      .prepare(`UPDATE calls SET status = ?, status_reason = ?, updated_at = ? WHERE id = ?`)
      .run(status, reason, now(), callId);
    if (result.changes !== 1) throw new RuntimeError('ledger_error', `no call ${callId} in the ledger`);
  }

  private migrate(): void {
    const current = this.schemaVersion;
    if (current > SCHEMA_VERSION) {
      throw new RuntimeError(
        'ledger_error',
        `the ledger at ${this.path} has schema version ${current}, newer than this piper-agent knows (${SCHEMA_VERSION})`,
        'upgrade piper-agent, or point --ledger at another file',
      );
    }
    if (current === SCHEMA_VERSION) return;
    // SQLite's procedure for a table rebuild (migration 6): foreign keys off outside the
    // transaction, checked by hand before each migration commits, on again afterwards.
    this.db.pragma('foreign_keys = OFF');
    try {
      for (let v = current; v < SCHEMA_VERSION; v++) {
        this.db.transaction(() => {
          this.db.exec(MIGRATIONS[v]!);
          const broken = this.db.pragma('foreign_key_check') as unknown[];
          if (broken.length)
            throw new Error(`migration ${v + 1} would leave ${broken.length} broken reference(s)`);
          this.db.pragma(`user_version = ${v + 1}`);
        })();
      }
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }
}

/**
 * A fresh call id: `c-` and 12 random hex digits. Random rather than counted, so an id can be taken
 * before its row is written (the stream's proposal names it) without a gap or a race in any table.
 */
export function newCallId(): string {
  return `c-${randomBytes(6).toString('hex')}`;
}

function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `r-${stamp}-${randomBytes(3).toString('hex')}`;
}
