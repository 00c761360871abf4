// The A/B runner's entry to a SWE-bench-format set: when --bench names a .jsonl or .json file, the
// instances are read (instance-file.ts), checked out and validated (prepare.ts), and handed to the
// runner as tasks; the invalid ones come back with their reasons for the report. The runner stays
// the same for both kinds of set: only the task's repository, digest, test target and judge differ.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Session } from '../../core/session.js';
import { prepareSet, type PreparedSet } from './prepare.js';
import type { SampleRequest } from './sample.js';
import { readSetOptions } from './validate-command.js';

export interface SweSetRequest {
  bench: string;
  repos: string | undefined;
  debian: string | undefined;
  /** --tasks: instance ids (null: every instance). */
  taskIds: readonly string[] | null;
  /** --sample N --seed S: N valid instances drawn in the seed's order. */
  sample?: SampleRequest | undefined;
}

/** Reads, checks out and validates the set; the caller removes the work trees with `remove()`. */
export async function openSweSet(
  request: SweSetRequest,
  session: Session,
  outDir: string,
  note: (line: string) => void,
): Promise<PreparedSet> {
  const set = readSetOptions({
    bench: request.bench,
    ...(request.repos ? { repos: request.repos } : {}),
    ...(request.debian ? { debian: request.debian } : {}),
    ...(request.taskIds ? { instances: request.taskIds.join(',') } : {}),
  });
  if (request.sample) set.sample = request.sample;
  const workDir = mkdtempSync(join(tmpdir(), 'piper-swe-ab-'));
  const ctx = {
    engine: session.engine,
    ledger: session.ledger,
    owner: session.owner,
    runtime: session.sandbox.runtime ?? null,
    log: note,
  };
  return prepareSet(set, ctx, outDir, workDir, note);
}
