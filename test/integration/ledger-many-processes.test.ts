// Many piper processes opening one fresh ledger at the same moment (two terminals, parallel CI
// steps, `ab` instances in one repository): every one of them opens it, and the schema is migrated
// exactly once. Real node processes open a real SQLite file; they start together at a barrier (a
// file they all wait for), so they race the file's creation, its switch to WAL and each migration.
// The children load the compiled ledger, so this runs dist/ (make build).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';
import { SCHEMA_VERSION } from '../../runtime/ledger/migrations.js';

const PROCESSES = 8;
const ROUNDS = 5;
const dir = mkdtempSync(join(tmpdir(), 'piper-ledger-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Says it is ready, waits for the barrier file, opens the ledger, prints its schema version or the error's message. */
const CHILD = `
import { existsSync } from 'node:fs';
const [ledgerModule, ledgerPath, barrier] = process.argv.slice(1);
const { Ledger } = await import(ledgerModule);
console.log('ready');
while (!existsSync(barrier)) await new Promise((r) => setTimeout(r, 2));
try {
  const ledger = Ledger.open(ledgerPath);
  console.log(JSON.stringify({ version: ledger.schemaVersion, journal: ledger.journalMode }));
  ledger.close();
} catch (error) {
  console.log(JSON.stringify({ error: error.message + ' [' + error.cause?.code + ': ' + error.cause?.message + ']' }));
  process.exitCode = 1;
}
`;

interface Opened {
  code: number | null;
  out: { version?: number; journal?: string; error?: string } | null;
  stderr: string;
}

function openInChild(ledgerPath: string, barrier: string): { ready: Promise<void>; done: Promise<Opened> } {
  const ledgerModule = pathToFileURL(join(packageRoot(), 'dist', 'runtime', 'ledger', 'ledger.js')).href;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', CHILD, ledgerModule, ledgerPath, barrier],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // Ready once it has loaded the ledger's module and waits at the barrier.
  // (or gone: its result says why).
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', () => {
      if (stdout.startsWith('ready\n')) resolve();
    });
    child.on('close', () => resolve());
  });
  const done = new Promise<Opened>((resolve) =>
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      resolve({ code, out: line ? (JSON.parse(line) as Opened['out']) : null, stderr });
    }),
  );
  return { ready, done };
}

describe('a fresh ledger opened by many processes at once', () => {
  for (let round = 1; round <= ROUNDS; round++)
    it(`round ${round}: all ${PROCESSES} open it, and it is migrated once to version ${SCHEMA_VERSION}`, async () => {
      const ledgerPath = join(dir, `round-${round}`, '.piper', 'ledger.db');
      const barrier = join(dir, `go-${round}`);
      const children = Array.from({ length: PROCESSES }, () => openInChild(ledgerPath, barrier));
      await Promise.all(children.map((c) => c.ready));
      writeFileSync(barrier, '');
      const results = await Promise.all(children.map((c) => c.done));
      for (const r of results) {
        expect(r.out?.error, r.stderr).toBeUndefined();
        expect(r.code).toBe(0);
        expect(r.out).toEqual({ version: SCHEMA_VERSION, journal: 'wal' });
      }
    });
});
