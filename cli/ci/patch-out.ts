// `--patch-out FILE`: the run's committed edits as one unified diff (the result's `diff`), for a CI
// job to open a pull request from or to decide on. Written whenever the run ends with a result —
// verified or not, capped, stopped, waiting for an answer — and empty when the run edited nothing,
// so "the file exists" means "the run ended" and "it is empty" means "no change". The place is
// checked before any work, so a typo in the path costs no model call.
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../core/exit-codes.js';

/** FILE as an absolute path whose directory exists and which is not itself a directory; else exit 2. */
export function checkOutputFile(flag: string, file: string): string {
  if (file === '') throw new UsageError(`${flag} needs a file name`);
  const path = resolve(file);
  const dir = statSync(dirname(path), { throwIfNoEntry: false });
  if (!dir) throw new UsageError(`${flag} ${file}: the directory ${dirname(path)} does not exist`);
  if (!dir.isDirectory()) throw new UsageError(`${flag} ${file}: ${dirname(path)} is not a directory`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${flag} ${file} is a directory; give a file name`);
  return path;
}

/** Writes the run's diff (possibly empty) to the checked path. */
export function writePatchOut(path: string, diff: string): void {
  writeFileSync(path, diff);
}
