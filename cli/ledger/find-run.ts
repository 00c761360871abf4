// Finding a recorded run: the ledger file (--ledger, PIPER_LEDGER, or the repository's own ledger
// in the user's state directory, with --repo defaulting to the current git root) and the run in
// it, by id or a unique id prefix. A read command never creates a ledger: a missing file is a
// refusal that says where it looked.
import { existsSync } from 'node:fs';
import { repoRoot } from '../../runtime/host/git.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerPath, movedLedgerNote } from '../../runtime/ledger/location.js';
import type { RunRow } from '../../runtime/ledger/run-row.js';
import { CommandError } from './command-error.js';
import { getRun, listRuns } from '../../runtime/ledger/runs.js';

/** A runs row as the run commands read it: its config JSON parsed ({} when absent). */
export type FoundRun = Omit<RunRow, 'config'> & { config: Record<string, unknown> };

const ELSEWHERE =
  'a run is recorded in the ledger of the repository it ran on: pass --repo DIR (the repository) or --ledger PATH';

/** Opens the ledger a command points at; refuses (never creates) when the file is not there. */
export function openLedgerAt(where: { ledger?: string; repo?: string }): Ledger {
  const repo = where.repo ?? repoRoot();
  const path = ledgerPath({ flag: where.ledger, repo });
  if (!existsSync(path))
    throw new CommandError(`no ledger at ${path}`, movedLedgerNote(repo, path) ?? ELSEWHERE);
  return Ledger.open(path);
}

/**
 * The id of the run with this id, or of the one run whose id starts with it; undefined when none
 * does. A prefix that several runs share is refused, naming some of them.
 */
export function findRunId(ledger: Ledger, id: string): string | undefined {
  if (getRun(ledger, id)) return id;
  const matches = listRuns(ledger).filter((r) => r.id.startsWith(id));
  if (matches.length > 1) {
    throw new CommandError(
      `'${id}' matches ${matches.length} runs (${matches
        .slice(0, 3)
        .map((r) => r.id)
        .join(', ')}…)`,
      'give more of the run id',
    );
  }
  return matches[0]?.id;
}

/** The run with this id, or the one run whose id starts with it. */
export function findRun(ledger: Ledger, id: string): FoundRun {
  const found = findRunId(ledger, id);
  const row = found === undefined ? undefined : getRun(ledger, found);
  if (!row)
    throw new CommandError(
      `no run ${id} in the ledger at ${ledger.path}`,
      `${ELSEWHERE}; list runs with piper-agent ledger runs`,
    );
  return { ...row, config: parseConfig(row.config) };
}

function parseConfig(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'string' || raw === '') return {};
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
