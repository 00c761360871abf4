// The edit records of the ledger (docs/ledger.md): one row per committed edit, holding what
// undo needs (the diff, and the file's sha256 before and after) so every edit of a run can be
// reversed and checked byte for byte. Statements over the `edits` table of migrations.ts.
import { RuntimeError } from '../errors.js';
import type { Ledger } from './ledger.js';

export interface NewEdit {
  runId: string;
  callId?: string;
  /** Repo-relative, `/` separators. */
  path: string;
  selector?: string;
  beforeSha256: string;
  afterSha256: string;
  diff: string;
}

export interface EditRow {
  id: number;
  run_id: string;
  call_id: string | null;
  path: string;
  selector: string | null;
  before_sha256: string;
  after_sha256: string;
  diff: string;
  created_at: string;
  undone_at: string | null;
}

/** Records one committed edit; returns its id (ids grow in the order edits were made). */
export function recordEdit(ledger: Ledger, edit: NewEdit): number {
  try {
    const result = ledger.database
      .prepare(
        `INSERT INTO edits (run_id, call_id, path, selector, before_sha256, after_sha256, diff, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        edit.runId,
        edit.callId ?? null,
        edit.path,
        edit.selector ?? null,
        edit.beforeSha256,
        edit.afterSha256,
        edit.diff,
        new Date().toISOString(),
      );
    return Number(result.lastInsertRowid);
  } catch (error) {
    throw new RuntimeError(
      'ledger_error',
      `cannot record the edit of ${edit.path}: ${(error as Error).message}`,
      undefined,
      { cause: error },
    );
  }
}

/** The run's edits in the order they were made; undone ones only when asked for. */
export function editsForRun(
  ledger: Ledger,
  runId: string,
  options: { includeUndone?: boolean } = {},
): EditRow[] {
  const pending = options.includeUndone ? '' : 'AND undone_at IS NULL';
  return ledger.database
    .prepare(`SELECT * FROM edits WHERE run_id = ? ${pending} ORDER BY id`)
    .all(runId) as EditRow[];
}

/**
 * Marks edits undone, all or none: if any of them is already undone (another undo got there
 * first) nothing changes and a ledger_error says which.
 */
export function markUndone(ledger: Ledger, ids: number[]): void {
  const db = ledger.database;
  const at = new Date().toISOString();
  const mark = db.prepare(`UPDATE edits SET undone_at = ? WHERE id = ? AND undone_at IS NULL`);
  db.transaction(() => {
    for (const id of ids) {
      if (mark.run(at, id).changes !== 1) {
        throw new RuntimeError('ledger_error', `edit ${id} is unknown or already undone`);
      }
    }
  })();
}
