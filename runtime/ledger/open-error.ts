// Why a ledger file cannot be used, as one line a person can act on: what is wrong with which file
// and what to do — never a stack trace. Classified by the error's code (SQLite's or the file
// system's), never by its message text.
import { RuntimeError } from '../errors.js';

const ELSEWHERE = 'point --ledger (or PIPER_LEDGER) elsewhere';

/** How long a statement waits for another process's lock on the ledger before it fails (SQLITE_BUSY). */
export const BUSY_TIMEOUT_MS = 5000;
const LOCKED: [problem: string, fix: string] = [
  `another process held it locked for longer than ${BUSY_TIMEOUT_MS / 1000} s`,
  'wait for that process to end (or its write to finish), then try again',
];

/** What is wrong and the fix, by SQLite result code (extended codes fall back to their primary). */
const SQLITE: Record<string, [problem: string, fix: string]> = {
  SQLITE_NOTADB: ['file is not a database', `move it away or ${ELSEWHERE}`],
  SQLITE_CORRUPT: ['the database is damaged', `move it away or ${ELSEWHERE}`],
  SQLITE_READONLY_DIRECTORY: [
    'its directory is read-only (SQLite writes its journal beside the file)',
    `make the directory writable or ${ELSEWHERE}`,
  ],
  SQLITE_READONLY: ['file is read-only', `make it writable or ${ELSEWHERE}`],
  SQLITE_CANTOPEN: [
    'cannot be opened (a directory, or no permission to it or its directory)',
    `check the path and its permissions, or ${ELSEWHERE}`,
  ],
  SQLITE_PERM: ['access denied', `check its permissions or ${ELSEWHERE}`],
  SQLITE_AUTH: ['access denied', `check its permissions or ${ELSEWHERE}`],
  SQLITE_FULL: ['the disk is full', `free some space or ${ELSEWHERE}`],
  SQLITE_IOERR: ['a read or write failed', `check the disk, or ${ELSEWHERE}`],
  SQLITE_BUSY: LOCKED,
  SQLITE_LOCKED: LOCKED,
};

/** File-system codes while making the ledger's directory or checking the file. */
const FS: Record<string, [problem: string, fix: string]> = {
  EEXIST: ['a file is where its directory should be', `move that file or ${ELSEWHERE}`],
  ENOTDIR: ['a file is where its directory should be', `move that file or ${ELSEWHERE}`],
  EACCES: ['permission denied', `check the permissions of the file and its directory, or ${ELSEWHERE}`],
  EPERM: ['permission denied', `check the permissions of the file and its directory, or ${ELSEWHERE}`],
  EROFS: ['it is on a read-only file system', ELSEWHERE],
  EISDIR: ['it is a directory', ELSEWHERE],
  ENOSPC: ['the disk is full', `free some space or ${ELSEWHERE}`],
};

/** A ledger file this process may not write: SQLite would open it and fail at the first write, mid-run. */
export function unwritableLedger(path: string, cause: unknown): RuntimeError {
  const [problem, fix] = SQLITE.SQLITE_READONLY!;
  return new RuntimeError('ledger_error', `ledger ${path}: ${problem} — ${fix}`, undefined, { cause });
}

/**
 * A migration that failed under the write lock, where no other piper-agent can be migrating the
 * same file: a lock or disk failure is classified as any other; a schema statement that fails
 * (a table that already exists) means the file was changed outside piper-agent's migrations.
 */
export function migrationFailure(path: string, step: number, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'SQLITE_ERROR') return error;
  return new RuntimeError(
    'ledger_error',
    `ledger ${path}: migration ${step} failed (${(error as Error).message}), although the file's schema version says it has not run: the file was changed outside piper-agent — move it away or ${ELSEWHERE}`,
    undefined,
    { cause: error },
  );
}

/** A SQLite failure that surfaced away from Ledger.open (a damaged page, a full disk), or null. */
export function sqliteFailure(error: unknown): RuntimeError | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? ledgerFailure(error) : null;
}

/**
 * The RuntimeError (kind `ledger_error`) for a SQLite or file-system failure on the ledger at
 * `path` (unknown when the failure surfaced away from the file), or null when `error` is neither.
 * The fix is part of the one-line message: the error is printed as it is.
 */
export function ledgerFailure(error: unknown, path?: string): RuntimeError | null {
  if (error instanceof RuntimeError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const known = code.startsWith('SQLITE_')
    ? (SQLITE[code] ??
      SQLITE[code.split('_').slice(0, 2).join('_')] ?? [
        (error as Error).message,
        `move it away or ${ELSEWHERE}`,
      ])
    : FS[code];
  if (!known) return null;
  const [problem, fix] = known;
  return new RuntimeError(
    'ledger_error',
    `${path ? `ledger ${path}` : 'the ledger'}: ${problem} — ${fix}`,
    undefined,
    {
      cause: error,
    },
  );
}
