// `ledger export RUN` as a self-contained artifact: one versioned JSON document holding the run's
// rows from every table it touches (runs, turns, calls, executions, observations, evidence, edits,
// the environments it ran in). `ledger show --from FILE` loads those rows into a ledger in memory
// and reads the run back with the same queries and renderer as `ledger show RUN`, so a CI job's
// artifact reads the same on another machine. Anything else given as FILE is one clear refusal.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isRuntimeError } from '../../runtime/errors.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { insertRunRows, RUN_TABLES, runRows, type RunRows } from '../../runtime/ledger/run-rows.js';
import { inert } from '../../runtime/text/inert.js';
import { CommandError } from './command-error.js';

export const EXPORT_FORMAT = 'piper-run/1';

export interface RunExport {
  format: typeof EXPORT_FORMAT;
  run_id: string;
  /** The ledger schema the rows were read from (PRAGMA user_version). */
  schema_version: number;
  exported_at: string;
  tables: RunRows;
}

const cell = z.union([z.string(), z.number(), z.null()]);
const rows = z.array(z.record(z.string(), cell));
const schema = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  run_id: z.string().min(1),
  schema_version: z.number().int().min(1),
  exported_at: z.string(),
  tables: z.strictObject({
    ...(Object.fromEntries(RUN_TABLES.map((t) => [t, rows])) as Record<keyof RunRows, typeof rows>),
    // Exports written before the ledger kept prompts have none.
    prompt_parts: rows.optional(),
  }),
});

export function exportRun(ledger: Ledger, runId: string): RunExport {
  return {
    format: EXPORT_FORMAT,
    run_id: runId,
    schema_version: ledger.schemaVersion,
    exported_at: new Date().toISOString(),
    tables: runRows(ledger, runId),
  };
}

const HOW = 'give a file written by piper-agent ledger export RUN (--out FILE)';

/** The export in `text` (read from `source`), checked; a CommandError (exit 2) when it is not one. */
export function parseRunExport(text: string, source: string): RunExport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the file, which may hold anything.
    throw new CommandError(`${source} is not JSON`, HOW);
  }
  const format = (value as { format?: unknown } | null)?.format;
  if (format !== EXPORT_FORMAT) {
    const what =
      typeof format === 'string' ? `its format is '${inert(format.slice(0, 40))}'` : 'it has no format field';
    throw new CommandError(`${source} is not a piper-agent run export: ${what}, not '${EXPORT_FORMAT}'`, HOW);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CommandError(
      // Keys and values from the file reach the terminal through inert().
      inert(
        `${source} is a malformed ${EXPORT_FORMAT} export: ${issue.path.join('.') || '(top)'}: ${issue.message}`,
      ),
      HOW,
    );
  }
  const doc = parsed.data as RunExport;
  const runs = doc.tables.runs;
  if (runs.length !== 1 || runs[0]!.id !== doc.run_id)
    throw new CommandError(
      `${source} is a malformed ${EXPORT_FORMAT} export: its runs table must hold run ${doc.run_id} alone`,
      HOW,
    );
  for (const table of ['turns', 'calls', 'observations', 'evidence', 'edits'] as const) {
    if (doc.tables[table].some((r) => r.run_id !== doc.run_id))
      throw new CommandError(
        `${source} is a malformed ${EXPORT_FORMAT} export: table ${table} holds rows of another run`,
        HOW,
      );
  }
  return doc;
}

/**
 * The run of an export file, in a ledger of its own in memory (close it when done). A file from a
 * newer schema, or whose rows do not fit together, is refused like a malformed one.
 */
export function openRunExport(file: string): { ledger: Ledger; runId: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CommandError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      HOW,
    );
  }
  const doc = parseRunExport(text, file);
  const ledger = Ledger.open(':memory:');
  try {
    if (doc.schema_version > ledger.schemaVersion)
      throw new CommandError(
        `${file} was exported from a ledger of schema ${doc.schema_version}; this piper-agent reads up to ${ledger.schemaVersion}`,
        'read it with a newer piper-agent',
      );
    insertRunRows(ledger, doc.tables);
  } catch (error) {
    ledger.close();
    if (isRuntimeError(error, 'ledger_error'))
      throw new CommandError(inert(`${file} is a malformed ${EXPORT_FORMAT} export: ${error.message}`), HOW);
    throw error;
  }
  return { ledger, runId: doc.run_id };
}
