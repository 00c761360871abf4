// Validations kept beside an A/B's ledger (OUT/validation.json), keyed by the instance's content
// digest (instance.ts): `ab validate` writes them, and `ab` reads them instead of validating an
// unchanged instance again. A changed instance (its patch, tests, commit or Debian) has a new digest
// and is validated again, and so is one judged by an earlier rule of validity. The file is rewritten
// whole through a rename, so a crash never leaves half of it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Validation } from './validate.js';
import { VALIDITY_RULE } from './validity.js';

const VALIDATION_FILE = 'validation.json';

export class ValidationCache {
  private readonly entries: Record<string, Validation>;
  private readonly file: string;

  constructor(outDir: string) {
    this.file = join(outDir, VALIDATION_FILE);
    this.entries = existsSync(this.file) ? readEntries(this.file) : {};
  }

  get(digest: string): Validation | undefined {
    const entry = this.entries[digest];
    return entry?.rule === VALIDITY_RULE ? entry : undefined;
  }

  put(digest: string, validation: Validation): void {
    this.entries[digest] = { ...validation, rule: VALIDITY_RULE };
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(this.entries, null, 2)}\n`);
    renameSync(tmp, this.file);
  }
}

function readEntries(file: string): Record<string, Validation> {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, Validation>) : {};
  } catch {
    // A damaged cache only costs a validation again.
    return {};
  }
}
