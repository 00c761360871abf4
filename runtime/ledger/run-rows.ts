// One run's rows, table by table, as plain values: what `ledger export` writes and what
// `ledger show --from` loads into a ledger of its own (in memory) so the run is read back by the
// same queries that read it from the database it ran in. Rows are copied column for column (ids
// included), so the order and links between them are the original ones.
import { RuntimeError } from '../errors.js';
import type { Ledger } from './ledger.js';

type Cell = string | number | null;
type Row = Record<string, Cell>;

/** Every table a run's record touches, parents before children (the order rows are inserted in). */
export const RUN_TABLES = [
  'runs',
  'turns',
  'calls',
  'executions',
  'observations',
  'evidence',
  'edits',
  'environments',
  'prompt_parts',
] as const;
type RunTable = (typeof RUN_TABLES)[number];
export type RunRows = Record<RunTable, Row[]>;

// Ordered as the readers order them, so rowids come back in the same order on insert.
const SELECT: Record<RunTable, string> = {
  runs: `SELECT * FROM runs WHERE id = @run`,
  turns: `SELECT * FROM turns WHERE run_id = @run ORDER BY id`,
  calls: `SELECT * FROM calls WHERE run_id = @run ORDER BY created_at, rowid`,
  executions: `SELECT e.* FROM executions e JOIN calls c ON c.id = e.call_id WHERE c.run_id = @run ORDER BY e.rowid`,
  observations: `SELECT * FROM observations WHERE run_id = @run ORDER BY id`,
  evidence: `SELECT * FROM evidence WHERE run_id = @run ORDER BY id`,
  edits: `SELECT * FROM edits WHERE run_id = @run ORDER BY id`,
  // The environments the run's executions ran in (linked by key), plus the one its config names.
  environments: `SELECT * FROM environments WHERE key IN (
      SELECT e.env_key FROM executions e JOIN calls c ON c.id = e.call_id WHERE c.run_id = @run
      UNION SELECT json_extract(config, '$.env_key') FROM runs WHERE id = @run AND json_valid(config)
    ) ORDER BY id`,
  // The parts the run's turns' prompts are made of (runtime/ledger/prompts.ts), each once.
  prompt_parts: `SELECT p.* FROM prompt_parts p WHERE p.sha256 IN (
      SELECT j.value FROM turns t, json_tree(t.prompt) j
      WHERE t.run_id = @run AND t.prompt IS NOT NULL AND j.type = 'text'
    ) ORDER BY p.sha256`,
};

// A prompt part's gzipped body is a BLOB in the ledger and base64 text in a row copy (an export
// is JSON); these two convert at the edge.
const toCell = (table: RunTable, row: Record<string, unknown>): Row =>
  table === 'prompt_parts' && Buffer.isBuffer(row.body)
    ? ({ ...row, body: row.body.toString('base64') } as Row)
    : (row as Row);
const fromCell = (table: RunTable, name: string, value: Cell): Cell | Buffer =>
  table === 'prompt_parts' && name === 'body' && typeof value === 'string'
    ? Buffer.from(value, 'base64')
    : value;

/** The run's rows from every table it touches; `runs` holds exactly its one row. */
export function runRows(ledger: Ledger, runId: string): RunRows {
  const rows = {} as RunRows;
  for (const table of RUN_TABLES)
    rows[table] = (
      ledger.database.prepare(SELECT[table]).all({ run: runId }) as Array<Record<string, unknown>>
    ).map((row) => toCell(table, row));
  if (rows.runs.length !== 1) throw new RuntimeError('ledger_error', `no run ${runId} in ${ledger.path}`);
  return rows;
}

/** The columns each run table has in this ledger's schema. */
function runTableColumns(ledger: Ledger): Record<RunTable, Set<string>> {
  const columns = {} as Record<RunTable, Set<string>>;
  for (const table of RUN_TABLES) {
    const info = ledger.database.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{
      name: string;
    }>;
    columns[table] = new Set(info.map((c) => c.name));
  }
  return columns;
}

/**
 * Inserts a run's rows into this ledger, all or none. A column this schema does not have, a row
 * that breaks a constraint or a link (a call of a turn that is not there) is a `ledger_error`
 * naming the table; nothing is left behind then.
 */
export function insertRunRows(ledger: Ledger, rows: RunRows): void {
  const columns = runTableColumns(ledger);
  const db = ledger.database;
  db.transaction(() => {
    for (const table of RUN_TABLES) {
      // An export written before a table existed has no entry for it.
      for (const row of rows[table] ?? []) {
        const names = Object.keys(row);
        const unknown = names.find((n) => !columns[table].has(n));
        if (unknown !== undefined)
          throw new RuntimeError('ledger_error', `table ${table} has no column '${unknown}'`);
        if (names.length === 0) throw new RuntimeError('ledger_error', `an empty row in table ${table}`);
        try {
          db.prepare(
            `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
          ).run(...names.map((n) => fromCell(table, n, row[n]!)));
        } catch (error) {
          throw new RuntimeError(
            'ledger_error',
            `a row of table ${table}: ${(error as Error).message}`,
            undefined,
            {
              cause: error,
            },
          );
        }
      }
    }
  })();
}
