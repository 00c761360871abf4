// The SQLite ledger (docs/ledger.md): the single record of what ran. better-sqlite3 is
// imported here and nowhere else. WAL lets a reader (`piper-agent log`, a second run) look while a
// run writes; every write that belongs to one call is one transaction. This class is the handle:
// opening (with the migrations) and closing; each table's statements are free functions in the
// module of that table (runs.ts, calls.ts, turns.ts, ...), taking the Ledger first.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { RuntimeError } from '../errors.js';
import { adoptOwner, makeOwnedDirectory, type FileOwner } from '../host/checkout-owner.js';
import { makeStateDirectory } from '../host/piper-directory.js';
import { ledgerDirectory } from './location.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { BUSY_TIMEOUT_MS, ledgerFailure, migrationFailure, unwritableLedger } from './open-error.js';
import { refuseTrackedLedger } from './tracked.js';

export type { CallOrigin } from './call-row.js';

export class Ledger {
  private constructor(
    readonly path: string,
    private readonly db: Database.Database,
  ) {}

  static open(path: string): Ledger {
    let db: Database.Database | undefined;
    let fileOwner: FileOwner | null = null;
    let created = false;
    if (path !== ':memory:') refuseTrackedLedger(path);
    try {
      if (path !== ':memory:') {
        // Run as root on someone else's checkout, the ledger is theirs like its directory. The
        // state directory's ledgers are the user's alone.
        const dir = dirname(path);
        fileOwner = dir === ledgerDirectory() ? makeOwnedDirectory(dir, 0o700) : makeStateDirectory(dir);
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
      // The busy timeout first: switching a fresh file to WAL takes a lock another process opening
      // it at the same moment may hold, and without a timeout that switch fails at once.
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      whileBusy(() => db!.pragma('journal_mode = WAL'));
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

  private migrate(): void {
    const seen = this.schemaVersion;
    this.refuseNewer(seen);
    if (seen === SCHEMA_VERSION) return;
    // SQLite's procedure for a table rebuild (migration 6): foreign keys off outside the
    // transaction, checked by hand before each migration commits, on again afterwards.
    this.db.pragma('foreign_keys = OFF');
    try {
      while (this.migrateOneStep()) {
        // Each step is its own write transaction; the next one reads the version again.
      }
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  /**
   * One migration under the write lock (BEGIN IMMEDIATE): the version is read again inside it, so
   * a step another process opening the same file has just made is skipped, never run twice.
   * False when there is nothing left to do.
   */
  private migrateOneStep(): boolean {
    return this.db
      .transaction(() => {
        const v = this.schemaVersion;
        this.refuseNewer(v);
        if (v >= SCHEMA_VERSION) return false;
        try {
          this.db.exec(MIGRATIONS[v]!);
        } catch (error) {
          throw migrationFailure(this.path, v + 1, error);
        }
        const broken = this.db.pragma('foreign_key_check') as unknown[];
        if (broken.length)
          throw new Error(`migration ${v + 1} would leave ${broken.length} broken reference(s)`);
        this.db.pragma(`user_version = ${v + 1}`);
        return true;
      })
      .immediate();
  }

  private refuseNewer(version: number): void {
    if (version > SCHEMA_VERSION)
      throw new RuntimeError(
        'ledger_error',
        `the ledger at ${this.path} has schema version ${version}, newer than this piper-agent knows (${SCHEMA_VERSION})`,
        'upgrade piper-agent, or point --ledger at another file',
      );
  }
}

/**
 * Runs `statement` again while SQLite answers SQLITE_BUSY at once, up to the busy timeout. The
 * switch of a fresh file to WAL reads the file before it asks for the write lock, and a connection
 * that holds a read lock is refused the write lock without its busy handler being called (SQLite
 * avoids a deadlock that way) when another process opening the file has the same idea.
 */
function whileBusy<T>(statement: () => T): T {
  const until = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      return statement();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() > until) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
    }
  }
}
