// Imports the records of another ledger file into this one: how the runs an A/B instance made on a
// Swarm node (its own ledger, returned in its result block) join OUT/ledger.db, so the report reads
// them as it reads a local run's. Text ids (runs, calls) are random and kept; integer ids (turns,
// observations, edits, ...) are shifted past this ledger's largest, and so is every column that
// references one: the foreign keys are read from the schema, not listed by hand, so a new table or
// column needs no change here. One transaction: all of the file's rows, or none.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { RuntimeError } from '../errors.js';
import type { Ledger } from './ledger.js';

/** Caches and rows the importer writes itself: never copied. */
const SKIPPED = new Set(['code_files', 'code_nodes', 'ab_instances']);
/** Content-addressed rows: one already here is the same row. */
const SHARED = new Set(['prompt_parts']);

interface Table {
  name: string;
  columns: string[];
  /** The INTEGER PRIMARY KEY column, when the table has one. */
  intKey: string | null;
  /** Column -> the table it references. */
  refs: Map<string, string>;
}

interface MergeResult {
  /** The run ids the file holds. */
  runs: string[];
  /** True when they were all here already (the same result imported twice): nothing written. */
  already: boolean;
}

/** Imports every run of the ledger file `bytes` (a serialized SQLite database) into `ledger`. */
export function mergeLedgerFile(ledger: Ledger, bytes: Buffer): MergeResult {
  const db = ledger.database;
  const dir = mkdtempSync(join(tmpdir(), 'piper-merge-'));
  const file = join(dir, 'source.db');
  writeFileSync(file, bytes);
  db.prepare('ATTACH DATABASE ? AS src').run(file);
  try {
    const theirs = db.pragma('src.user_version', { simple: true });
    const ours = db.pragma('main.user_version', { simple: true });
    if (theirs !== ours)
      throw new RuntimeError(
        'ledger_error',
        `the ledger to import has schema ${String(theirs)}, this one ${String(ours)}`,
      );
    const runs = (db.prepare('SELECT id FROM src.runs').all() as Array<{ id: string }>).map((r) => r.id);
    const present = runs.filter((id) => db.prepare('SELECT 1 FROM main.runs WHERE id = ?').get(id));
    if (runs.length > 0 && present.length === runs.length) return { runs, already: true };
    if (present.length > 0)
      throw new RuntimeError(
        'ledger_error',
        `the ledger to import shares some runs with this one: ${present.join(', ')}`,
      );
    db.transaction(() => copyTables(db))();
    return { runs, already: false };
  } finally {
    db.prepare('DETACH DATABASE src').run();
    rmSync(dir, { recursive: true, force: true });
  }
}

function copyTables(db: Database.Database): void {
  const tables = inDependencyOrder(readTables(db));
  const offsets = new Map<string, number>();
  for (const t of tables) {
    if (!t.intKey) continue;
    const row = db.prepare(`SELECT COALESCE(MAX("${t.intKey}"), 0) AS m FROM main."${t.name}"`).get() as {
      m: number;
    };
    offsets.set(t.name, row.m);
  }
  for (const t of tables) {
    const shifted = t.columns.map((c) => {
      const by = c === t.intKey ? offsets.get(t.name) : offsets.get(t.refs.get(c) ?? '');
      return by ? `"${c}" + ${by}` : `"${c}"`;
    });
    const list = t.columns.map((c) => `"${c}"`).join(', ');
    const verb = SHARED.has(t.name) ? 'INSERT OR IGNORE' : 'INSERT';
    db.prepare(
      `${verb} INTO main."${t.name}" (${list}) SELECT ${shifted.join(', ')} FROM src."${t.name}"`,
    ).run();
  }
}

function readTables(db: Database.Database): Table[] {
  const names = db
    .prepare(`SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
    .all() as Array<{ name: string }>;
  return names
    .map((n) => n.name)
    .filter((name) => !SKIPPED.has(name))
    .map((name) => {
      const info = db.pragma(`main.table_info("${name}")`) as Array<{
        name: string;
        type: string;
        pk: number;
      }>;
      const keys = info.filter((c) => c.pk > 0);
      const intKey = keys.length === 1 && keys[0]!.type.toUpperCase() === 'INTEGER' ? keys[0]!.name : null;
      const fks = db.pragma(`main.foreign_key_list("${name}")`) as Array<{ table: string; from: string }>;
      return {
        name,
        columns: info.map((c) => c.name),
        intKey,
        refs: new Map(fks.map((f) => [f.from, f.table])),
      };
    });
}

/** Referenced tables before the tables that reference them (a table's reference to itself aside). */
function inDependencyOrder(tables: Table[]): Table[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const order: Table[] = [];
  const visit = (t: Table) => {
    if (done.has(t.name)) return;
    done.add(t.name);
    for (const ref of t.refs.values()) if (ref !== t.name && byName.has(ref)) visit(byName.get(ref)!);
    order.push(t);
  };
  tables.forEach(visit);
  return order;
}
