// `piper-agent ledger runs | show RUN | export RUN`: reading the record. Every number printed here
// comes from the ledger's rows, never from what a run said about itself.
import { parseArgs } from 'node:util';
import { listRuns } from '../../runtime/ledger/run-queries.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { reportingRefusals } from '../ledger/command-error.js';
import { findRun, openLedgerAt } from '../ledger/find-run.js';
import { renderRun } from '../ledger/render-run.js';
import { runDocument } from '../ledger/run-document.js';
import { renderRunTable, runListEntry } from '../ledger/run-table.js';
import { numberOption } from '../options.js';

export const LEDGER_HELP = `Usage: piper-agent ledger runs [--limit N] [--json] [--ledger PATH] [--repo DIR]
       piper-agent ledger show RUN [--json] [--ledger PATH] [--repo DIR]
       piper-agent ledger export RUN [--ledger PATH] [--repo DIR]

Reads the SQLite ledger, the record of what every run did.

  runs       the runs, newest first: id, start, kind, outcome, turns, tokens, cost, the issue's first line
  show RUN   one run in full: its settings and ending; each turn's retrieved toolset and action; each
             call's origin, status and reason; each sandbox execution's exit code and timings; each
             observation's trust and caveat; the run's edits with their diffs
  export RUN the whole run as one JSON document (what show --json prints), stdout and stderr included

  RUN            a run id, or a prefix of one that matches a single run
  --json         JSON instead of text
  --limit N      runs: at most N runs
  --ledger PATH  ledger file (default <repo>/.piper/ledger.db)  [env PIPER_LEDGER]
  --repo DIR     the repository whose ledger to read (default: the git root of the current directory)

Exit status: 0 ok; 1 internal error; 2 usage error, no ledger there, or no such run.`;

const OPTIONS = {
  json: { type: 'boolean', default: false },
  limit: { type: 'string' },
  ledger: { type: 'string' },
  repo: { type: 'string' },
} as const;

export async function ledgerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [sub, runId, ...extra] = positionals;
  if (sub !== 'runs' && sub !== 'show' && sub !== 'export') {
    throw new UsageError(
      sub
        ? `unknown ledger command '${sub}' (runs, show or export)`
        : 'ledger needs a command: runs, show RUN or export RUN',
    );
  }
  if (sub === 'runs' ? runId !== undefined : runId === undefined || extra.length > 0) {
    throw new UsageError(sub === 'runs' ? 'ledger runs takes no run id' : `ledger ${sub} needs one run id`);
  }
  const limit = numberOption('--limit', values.limit, { min: 1, max: 1e6, integer: true });
  return reportingRefusals(async () => {
    const ledger = openLedgerAt({ ledger: values.ledger, repo: values.repo });
    try {
      if (sub === 'runs') {
        const entries = listRuns(ledger, { limit }).map(runListEntry);
        process.stdout.write(
          values.json
            ? `${JSON.stringify(entries, null, 2)}\n`
            : `${renderRunTable(entries, process.stdout.columns || 120)}\n`,
        );
        return EXIT.ok;
      }
      const doc = runDocument(ledger, findRun(ledger, runId!));
      process.stdout.write(
        sub === 'export' || values.json ? `${JSON.stringify(doc, null, 2)}\n` : `${renderRun(doc)}\n`,
      );
      return EXIT.ok;
    } finally {
      ledger.close();
    }
  });
}
