// `piper-agent replay RUN`: runs a recorded fix run again — its recorded model replies, its
// operator answers, its settings — on a fresh copy of its repository at the commit it started
// from, into a scratch ledger, and reports the first turn where the two records differ. What the
// sandbox and the deterministic stages do is re-done for real; only the model is played back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { answerNoteSchema } from '../../policy/turn/journal.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ownerAlive, parseOwner } from '../../runtime/sandbox/owner.js';
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { loadConfig, type Config } from '../../core/config.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { runFix } from '../../core/fix/run-fix.js';
import { CommandError, reportingRefusals } from '../ledger/command-error.js';
import { findRun, openLedgerAt, type FoundRun } from '../ledger/find-run.js';
import { compareRuns, type Comparison } from '../ledger/replay-compare.js';
import { replayModel } from '../ledger/replay-model.js';
import { checkReplayImage } from '../ledger/replay-image.js';
import { checkoutRunHead } from '../ledger/replay-workspace.js';
import { runDocument, type RunDocument } from '../ledger/run-document.js';

export const REPLAY_HELP = `Usage: piper-agent replay RUN [--ledger PATH] [--repo DIR] [--json] [--keep]

Re-runs a recorded fix run with its recorded model replies (and the operator's recorded answers)
on a fresh copy of its repository at the commit it started from, with the same policy, repro test,
caps and sandbox image, into a scratch ledger; then compares the two runs turn by turn — toolsets,
parsed actions, calls (tool, args, verdict, status), sandbox exit codes, observations (kind, trust),
outcome — and prints the first divergence, or "no divergence". A recorded image that piper did not
build is used only when your own configuration names it (PIPER_IMAGE, image): a ledger can come
with a repository.

  RUN            the run id (or a unique prefix)
  --ledger PATH  the ledger the run is in  [env PIPER_LEDGER]
  --repo DIR     the repository whose ledger the run is in, and the git repository holding its
                 commit (default: the run's own repository; the ledger of the current git root)
  --json         {run_id, replay_run_id, divergence, compared, notes} as JSON
  --keep         keep the scratch directory (the copy and its ledger) and print where it is

Exit status: 0 no divergence; 4 the replay diverged; 1 internal error; 2 usage error, an unknown
run, or no commit to replay on (no git, or the commit is gone); 5 no sandbox engine.`;

const OPTIONS = {
  ledger: { type: 'string' },
  repo: { type: 'string' },
  json: { type: 'boolean', default: false },
  keep: { type: 'boolean', default: false },
} as const;

export async function replayCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length ? 'replay takes one run id' : 'replay needs the id of a recorded run',
    );
  return reportingRefusals(async () => {
    const ledger = openLedgerAt({ ledger: values.ledger, repo: values.repo });
    let recorded: RunDocument;
    try {
      recorded = runDocument(ledger, findRun(ledger, positionals[0]!));
    } finally {
      ledger.close();
    }
    refuseUnreplayable(recorded.run);
    const scratch = mkdtempSync(join(tmpdir(), 'piper-replay-'));
    try {
      const replayed = await replay(recorded, values.repo ?? null, scratch);
      const comparison = compareRuns(recorded, replayed);
      const notes = notesOn(recorded, replayed, comparison);
      if (values.keep) notes.push(`scratch copy and ledger kept in ${scratch}`);
      const report = {
        run_id: recorded.run.id,
        replay_run_id: replayed.run.id,
        divergence: comparison.divergence,
        compared: comparison.compared,
        notes,
      };
      process.stdout.write(
        values.json
          ? `${JSON.stringify(report, null, 2)}\n`
          : `${renderReport(recorded, replayed, comparison, notes)}\n`,
      );
      return comparison.divergence ? EXIT.no : EXIT.ok;
    } finally {
      if (!values.keep) rmSync(scratch, { recursive: true, force: true });
    }
  });
}

function refuseUnreplayable(run: FoundRun): void {
  if (run.kind !== 'fix')
    throw new CommandError(`run ${run.id} is a ${run.kind} run; only fix runs are replayed`);
  const owner = parseOwner(run.owner);
  if (run.outcome === null && owner && ownerAlive(owner))
    throw new CommandError(
      `run ${run.id} is still running (process ${owner.pid})`,
      'replay it once it has ended',
    );
}

async function replay(recorded: RunDocument, source: string | null, scratch: string): Promise<RunDocument> {
  const { run } = recorded;
  const repo = checkoutRunHead(run, source, scratch);
  const ledgerFile = join(scratch, 'ledger.db');
  const config = recordedConfig(run, ledgerFile);
  await checkReplayImage({
    runId: run.id,
    image: config.image,
    engine: (await connectEngine()).engine,
    configured: loadConfig({ repo: source ?? process.cwd() }).config.image,
  });
  const answers = recorded.turns
    .flatMap((t) => t.observations)
    .filter((o) => o.kind === 'user')
    .map((o) => {
      const note = answerNoteSchema.safeParse(o.result);
      return note.success ? note.data.answer : '';
    });
  const result = await runFix({
    issue: run.issue ?? '',
    repo,
    config,
    reproTarget: typeof run.config.test === 'string' ? run.config.test : null,
    model: replayModel(recorded),
    // The recorded run's boundary: a turn whose inputs are the recorded ones gets the recorded prompt.
    ...(run.prompt_boundary ? { promptBoundary: run.prompt_boundary } : {}),
    emit: () => undefined,
    log: (line) => process.stderr.write(`${line}\n`),
    askUser: async () => answers.shift() ?? null,
  });
  const scratchLedger = Ledger.open(ledgerFile);
  try {
    return runDocument(scratchLedger, findRun(scratchLedger, result.run_id));
  } finally {
    scratchLedger.close();
  }
}

/** The settings the run recorded, and nothing from this machine's config or environment. */
function recordedConfig(run: FoundRun, ledger: string): Config {
  const c = run.config;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const config: Config = {
    policy: run.policy === 'current' ? 'current' : 'policy',
    maxTurns: num(c.maxTurns) ?? 30,
    maxTokens: num(c.maxTokens),
    maxCostUsd: num(c.maxCostUsd),
    maxWallS: num(c.maxWallS),
    image: typeof c.image === 'string' ? c.image : undefined,
    ledger,
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as Config;
}

function notesOn(recorded: RunDocument, replayed: RunDocument, comparison: Comparison): string[] {
  const notes: string[] = [];
  const digests = (d: RunDocument) => [
    ...new Set(
      d.turns.flatMap((t) => t.calls).flatMap((c) => (c.execution ? [c.execution.image_digest] : [])),
    ),
  ];
  const [a, b] = [digests(recorded), digests(replayed)];
  if (a.length && b.length && a.join() !== b.join())
    notes.push(`the sandbox image differs: recorded ${a.join(', ')}, replayed ${b.join(', ')}`);
  const resumes = Array.isArray(recorded.run.config.resumes)
    ? (recorded.run.config.resumes as Array<{ previous_outcome?: string | null }>)
    : [];
  const broken = resumes.filter((r) => r.previous_outcome !== 'ask_user');
  if (comparison.divergence && broken.length)
    notes.push(
      `the run was resumed ${broken.length}× after ending otherwise than on a question; a replay runs it as one segment`,
    );
  if (comparison.divergence && recorded.run.config.maxCostUsd !== undefined)
    notes.push('a replayed model costs nothing, so a cost cap never falls where it fell');
  return notes;
}

function renderReport(
  recorded: RunDocument,
  replayed: RunDocument,
  comparison: Comparison,
  notes: string[],
): string {
  const turns = (d: RunDocument) => d.turns.filter((t) => t.idx !== null).length;
  const { compared: c, divergence: d } = comparison;
  const lines = [
    `replay of run ${recorded.run.id} (recorded: ${recorded.run.outcome ?? 'unfinished'}, ${turns(recorded)} turn records) at ${recorded.run.head?.slice(0, 12) ?? '?'}`,
    `  replay run ${replayed.run.id}: ${replayed.run.outcome ?? 'unfinished'}, ${turns(replayed)} turn records`,
    `  compared ${c.turns} turn(s), ${c.calls} call(s), ${c.executions} sandbox execution(s), ${c.observations} observation(s); ${c.identical_prompts} of the ${c.turns} prompt(s) byte-identical`,
  ];
  if (!d) lines.push('no divergence');
  else {
    lines.push(`first divergence: ${d.at}, ${d.kind}${d.index !== undefined ? ` #${d.index}` : ''}`);
    lines.push(`  recorded: ${JSON.stringify(d.recorded)}`, `  replayed: ${JSON.stringify(d.replayed)}`);
    if (d.stderr)
      lines.push(
        `  recorded stderr: ${d.stderr.recorded || '(empty)'}`,
        `  replayed stderr: ${d.stderr.replayed || '(empty)'}`,
      );
  }
  return [...lines, ...notes.map((n) => `note: ${n}`)].join('\n');
}
