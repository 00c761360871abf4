// `piper-agent undo RUN`: reverses every edit a run made, latest first, or refuses, naming the
// file, when one changed after the run touched it. All or nothing (primitives/undo.ts).
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { undoRun } from '../../primitives/undo.js';
import { repoRoot } from '../../runtime/host/git.js';
import { RepoLock } from '../../runtime/host/repo-lock.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerPath, movedLedgerNote } from '../../runtime/ledger/location.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { CommandError } from '../ledger/command-error.js';
import { findRunId } from '../ledger/find-run.js';
import { getRun } from '../../runtime/ledger/runs.js';

export const UNDO_HELP = `Usage: piper-agent undo RUN [--repo DIR] [--ledger PATH] [--json]

  RUN            the run id, or a unique prefix of it (as for ledger, resume and replay)

Restores every file that run RUN edited to the bytes it had before the run, undoing the run's
edits in the reverse order they were made. Every file is checked first: if one changed after the
run last edited it, nothing is undone and the file is named. Each restored file is verified
against the sha256 the ledger recorded before it is written, and written atomically.

  --repo DIR     the repository (default: the git root here; a run recorded on another
                 repository is refused unless --repo names the one to restore)
  --ledger PATH  ledger file (default: the repository's own, in ~/.local/state/piper-agent/ledgers/;
                 env PIPER_LEDGER)
  --json         print the result as one JSON object

Exit status: 0 when the edits were undone (or there were none left), 1 when undo refused,
2 for bad usage or while another run is live on the repository (it is named).`;

export async function undoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      ledger: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1)
    throw new UsageError('give exactly one run id, e.g. piper-agent undo r-20250101-120000-abc123');
  let runId = positionals[0]!;
  const where = values.repo ?? repoRoot();
  const path = ledgerPath({ flag: values.ledger, repo: where });
  if (!existsSync(path)) {
    const hint = movedLedgerNote(where, path) ?? "point --ledger or --repo at the run's ledger";
    return finish(values.json, { ok: false, error: `no ledger at ${path}; ${hint}` }, runId);
  }
  const ledger = Ledger.open(path);
  try {
    // A prefix names the run as in `ledger show`; an id that matches nothing goes on to undoRun,
    // whose refusal names it.
    try {
      runId = findRunId(ledger, runId) ?? runId;
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      return finish(values.json, { ok: false, error: `${error.message}; ${error.fix}` }, runId);
    }
    // The current repository, never the path the ledger names: a ledger is a file a repository can
    // carry, and its `repo` column could point undo at any directory on the host.
    const recorded = getRun(ledger, runId)?.repo;
    const repo = values.repo ?? repoRoot();
    if (values.repo === undefined && typeof recorded === 'string' && !sameDir(recorded, repo)) {
      return finish(
        values.json,
        {
          ok: false,
          error: `run ${runId} was recorded on ${recorded}, not on the current repository ${repo}; run undo there, or pass --repo DIR to restore the run's files in DIR`,
        },
        runId,
      );
    }
    // Not while a run works on the repository: its next edit, or this undo, would be lost.
    const lock = RepoLock.acquire(repo, { command: 'undo', runId });
    const result = await undoRun({ repoRoot: repo, ledger, runId }).finally(() => lock.release());
    return finish(
      values.json,
      { ok: result.ok, error: result.error, files: result.data?.files, undone: result.data?.undone },
      runId,
    );
  } finally {
    ledger.close();
  }
}

function sameDir(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}

function finish(
  json: boolean,
  result: {
    ok: boolean;
    error: string | null;
    files?: Array<{ path: string; edits: number }>;
    undone?: number;
  },
  runId: string,
): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ run_id: runId, ...result })}\n`);
  } else if (!result.ok) {
    process.stderr.write(`piper-agent: undo refused: ${result.error}\n`);
  } else if (!result.undone) {
    process.stdout.write(`run ${runId} has no edits left to undo\n`);
  } else {
    process.stdout.write(`undid ${result.undone} edit(s) of run ${runId}:\n`);
    for (const file of result.files ?? [])
      process.stdout.write(`  restored ${file.path} (${file.edits} edit(s))\n`);
  }
  return result.ok ? EXIT.ok : EXIT.failure;
}
