// A ledger that cannot be used is one line naming the file, the problem and the
// fix — a RuntimeError of kind ledger_error — never a raw SQLite error or a stack trace.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRuntimeError } from '../../runtime/errors.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerFailure, sqliteFailure } from '../../runtime/ledger/open-error.js';

const dir = () => mkdtempSync(join(tmpdir(), 'piper-ledger-open-'));

function openError(path: string): Error {
  try {
    Ledger.open(path).close();
  } catch (error) {
    expect(isRuntimeError(error, 'ledger_error')).toBe(true);
    return error as Error;
  }
  throw new Error(`Ledger.open(${path}) succeeded`);
}

describe('Ledger.open on a file it cannot use', () => {
  it('random bytes: not a database, move it away', () => {
    const path = join(dir(), 'ledger.db');
    writeFileSync(path, randomBytes(8192));
    expect(openError(path).message).toBe(
      `ledger ${path}: file is not a database — move it away or point --ledger (or PIPER_LEDGER) elsewhere`,
    );
  });

  it('a parent that is a regular file', () => {
    const file = join(dir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const path = join(file, '.piper', 'ledger.db');
    expect(openError(path).message).toMatch(
      new RegExp(
        `^ledger ${path}: a file is where its directory should be — move that file or point --ledger`,
      ),
    );
  });

  it('a directory where the file should be', () => {
    const path = join(dir(), 'ledger.db');
    mkdirSync(path);
    expect(openError(path).message).toMatch(new RegExp(`^ledger ${path}: `));
  });

  it.skipIf(process.getuid?.() === 0)('a read-only file and directory (as non-root)', () => {
    const d = dir();
    const path = join(d, 'ledger.db');
    Ledger.open(path).close();
    chmodSync(path, 0o444);
    chmodSync(d, 0o555);
    try {
      expect(openError(path).message).toMatch(/read-only/);
    } finally {
      chmodSync(d, 0o755);
    }
  });
});

describe('SQLite failures after the open', () => {
  it('become one line by code; other errors are not claimed', () => {
    const corrupt = Object.assign(new Error('database disk image is malformed'), {
      code: 'SQLITE_CORRUPT_VTAB',
    });
    expect(sqliteFailure(corrupt)?.message).toBe(
      'the ledger: the database is damaged — move it away or point --ledger (or PIPER_LEDGER) elsewhere',
    );
    expect(sqliteFailure(Object.assign(new Error('x'), { code: 'EACCES' }))).toBeNull();
    expect(sqliteFailure(new Error('plain'))).toBeNull();
    expect(ledgerFailure(Object.assign(new Error('x'), { code: 'ENOENT' }), '/x')).toBeNull();
  });
});
