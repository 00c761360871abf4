// `piper-agent ledger runs | show RUN | export RUN`: reading the record. Every number printed here
// comes from the ledger's rows, never from what a run said about itself. `show --from FILE` reads a
// run from an export (cli/ledger/run-export.ts) instead of a ledger, through the same renderer.
import { inertJson } from '../../runtime/text/inert.js';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { listRuns } from '../../runtime/ledger/runs.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { CommandError, reportingRefusals } from '../ledger/command-error.js';
import { findRun, openLedgerAt } from '../ledger/find-run.js';
import { renderRun } from '../ledger/render-run.js';
import { renderPrompts, runPrompts } from '../ledger/run-prompts.js';
import { runDocument } from '../ledger/run-document.js';
import { exportRun, openRunExport } from '../ledger/run-export.js';
import { checkOutputFile } from '../ci/patch-out.js';
import { renderRunTable, runListEntry } from '../ledger/run-table.js';
import { numberOption } from '../../core/options.js';

export const LEDGER_HELP = `Usage: piper-agent ledger runs [--limit N] [--json] [--ledger PATH] [--repo DIR]
       piper-agent ledger show RUN [--json] [--ledger PATH] [--repo DIR]
       piper-agent ledger show RUN --prompts [--turn N] [--json]
       piper-agent ledger show --from FILE [--json]
       piper-agent ledger export RUN [--out FILE] [--ledger PATH] [--repo DIR]

Reads the SQLite ledger, the record of what every run did.

  runs       the runs, newest first: id, start, kind, outcome, turns, tokens, cost, the issue's first line
  show RUN   one run in full: its settings and ending; each turn's retrieved toolset and action; each
             call's origin, status and reason; each sandbox execution's exit code and timings; each
             observation's trust and caveat; the run's edits with their diffs
  show RUN --prompts
             exactly what the model saw: each turn's messages (and native tool specs) as the ledger
             kept them, checked against the turn's recorded digest, then the model's raw reply
  export RUN the run as a self-contained artifact: a versioned JSON document ("format": "piper-run/1")
             holding its rows from every table it touches (runs, turns, calls, executions with their
             stdout and stderr, observations, evidence, edits, the environments it ran in)

  RUN            a run id, or a prefix of one that matches a single run
  --from FILE    show: read the run from an export file instead of a ledger (another machine's run
                 reads exactly as \`ledger show RUN\` printed it there)
  --out FILE     export: write the document to FILE instead of stdout
  --json         JSON instead of text (show: the run as one document, its turns holding their calls)
  --turn N       show --prompts: only turn N (with its re-selection, if it had one)
  --limit N      runs: at most N runs
  --ledger PATH  ledger file (default: the repository's own, in ~/.local/state/piper-agent/ledgers/)
                 [env PIPER_LEDGER]
  --repo DIR     the repository whose ledger to read (default: the git root of the current directory)

Exit status: 0 ok; 1 internal error; 2 usage error, no ledger there, no such run, or a file that is
not a piper-agent run export.`;

const OPTIONS = {
  json: { type: 'boolean', default: false },
  limit: { type: 'string' },
  ledger: { type: 'string' },
  repo: { type: 'string' },
  from: { type: 'string' },
  out: { type: 'string' },
  prompts: { type: 'boolean', default: false },
  turn: { type: 'string' },
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
  const fromFile = values.from;
  if (fromFile !== undefined && sub !== 'show') throw new UsageError('--from FILE goes with ledger show');
  if (values.out !== undefined && sub !== 'export')
    throw new UsageError('--out FILE goes with ledger export');
  if (fromFile !== undefined && (values.ledger !== undefined || values.repo !== undefined))
    throw new UsageError('ledger show --from FILE reads the file alone: leave out --ledger and --repo');
  const needsRun = sub !== 'runs' && fromFile === undefined;
  if (sub === 'runs' ? runId !== undefined : (needsRun && runId === undefined) || extra.length > 0) {
    throw new UsageError(sub === 'runs' ? 'ledger runs takes no run id' : `ledger ${sub} needs one run id`);
  }
  const limit = numberOption('--limit', values.limit, { min: 1, max: 1e6, integer: true });
  if ((values.prompts || values.turn !== undefined) && sub !== 'show')
    throw new UsageError('--prompts and --turn N go with ledger show');
  if (values.turn !== undefined && !values.prompts) throw new UsageError('--turn N goes with --prompts');
  const turn = numberOption('--turn', values.turn, { min: 1, max: 1e6, integer: true });
  const prompts = values.prompts ? { turn } : undefined;
  const out = values.out === undefined ? undefined : checkOutputFile('--out', values.out);
  return reportingRefusals(async () => {
    if (fromFile !== undefined) return showFromFile(fromFile, runId, values.json, prompts);
    const ledger = openLedgerAt({ ledger: values.ledger, repo: values.repo });
    try {
      if (sub === 'runs') {
        const entries = listRuns(ledger, { limit }).map(runListEntry);
        process.stdout.write(
          values.json
            ? `${inertJson(JSON.stringify(entries, null, 2))}\n`
            : `${renderRunTable(entries, process.stdout.columns || 120)}\n`,
        );
        return EXIT.ok;
      }
      if (sub === 'show') {
        show(ledger, findRun(ledger, runId!).id, values.json, ledger.path, prompts);
        return EXIT.ok;
      }
      const text = `${JSON.stringify(exportRun(ledger, findRun(ledger, runId!).id), null, 2)}\n`;
      if (out === undefined) process.stdout.write(text);
      else writeFileSync(out, text);
      return EXIT.ok;
    } finally {
      ledger.close();
    }
  });
}

/** `ledger show --from FILE`: the run in an export file, with no ledger opened. */
function showFromFile(
  fromFile: string,
  runId: string | undefined,
  json: boolean,
  prompts: Parameters<typeof show>[4],
): number {
  const opened = openRunExport(fromFile);
  try {
    // RUN beside --from: a check that the file holds that run.
    if (runId !== undefined && !opened.runId.startsWith(runId))
      throw new CommandError(`${fromFile} holds run ${opened.runId}, not ${runId}`);
    show(opened.ledger, opened.runId, json, fromFile, prompts);
    return EXIT.ok;
  } finally {
    opened.ledger.close();
  }
}

/** `ledger show`: the same document and text whether the rows come from a ledger or an export. */
function show(
  ledger: Ledger,
  runId: string,
  json: boolean | undefined,
  source: string,
  prompts?: { turn: number | undefined },
): void {
  if (prompts) {
    const run = findRun(ledger, runId);
    const turns = runPrompts(ledger, run, prompts.turn);
    process.stdout.write(
      json
        ? `${inertJson(JSON.stringify({ run_id: run.id, prompt_boundary: run.prompt_boundary ?? null, turns }, null, 2))}\n`
        : `${renderPrompts(run, turns)}\n`,
    );
    return;
  }
  const doc = { ...runDocument(ledger, findRun(ledger, runId)), ledger: source };
  process.stdout.write(json ? `${inertJson(JSON.stringify(doc, null, 2))}\n` : `${renderRun(doc)}\n`);
}
