// What `resume RUN` will run, decided before anything is changed: the run (refused when unknown,
// not a fix run, resolved, still running, waiting for an answer that was not given, or already at a
// cap the flags do not raise), its own settings with the flags on top, its loop state, and the
// model that continues it.
import { existsSync } from 'node:fs';
import { APPROVAL_MODES, type ApprovalMode } from '../../policy/approval.js';
import { capReached } from '../../policy/caps.js';
import { askUserNoteSchema } from '../../policy/turn/journal.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { ownerAlive, parseOwner } from '../../runtime/sandbox/owner.js';
import { loadConfig, type Config } from '../../core/config.js';
import type { FixInput } from '../../core/fix/run-fix.js';
import { flagsConfig } from '../commands/fix.js';
import { ignoredWarning } from '../repo-config-trust/settle.js';
import { isOwnRun } from '../../runtime/host/own-runs.js';
import { CommandError } from './command-error.js';
import { foreignRepo, foreignSettings, refuseForeignScript } from './foreign-run.js';
import { findRun, type FoundRun } from './find-run.js';
import { loopStateFor } from './resume-state.js';
import { resumeModel } from './resume-model.js';
import { runDocument } from './run-document.js';

export type ResumeValues = Parameters<typeof flagsConfig>[0] & { answer?: string };

export interface ResumePlan {
  run: FoundRun;
  input: Omit<FixInput, 'emit' | 'log' | 'askUser'>;
  stateSource: 'saved' | 'rebuilt';
  /** What was left out of a run this machine did not record starting, one line each. */
  notes: string[];
  /** A foreign run's recorded image, to check before it runs, and the one the user's config names. */
  foreignImage: { image: string | undefined; configured: string | undefined } | null;
  /** The warning about repository config keys left out (untrusted file), or null. */
  trustWarning: string | null;
}

export function planResume(ledger: Ledger, runArg: string, values: ResumeValues): ResumePlan {
  const run = findRun(ledger, runArg);
  const doc = runDocument(ledger, run);
  refuseUnresumable(
    run,
    doc.turns.flatMap((t) => t.observations),
    values.answer,
  );

  const own = isOwnRun(run);
  const repo = repoOf(run, own, values, ledger.path);
  const taken = takenSettings(run, own, ledger.path, { repo, values });
  const startedWith = taken.settings.approval;
  if (startedWith && values.approval !== undefined && values.approval !== startedWith)
    throw new CommandError(
      `run ${run.id} started with --approval ${startedWith}, and a resumed run keeps the approval policy it started with`,
      `resume it without --approval, or start a new run with piper-agent fix --approval ${values.approval}`,
    );
  const effective = loadConfig({
    repo,
    flags: { ...taken.settings, ...flagsConfig(values) },
    trustRepo: values['trust-repo-config'],
  });
  const { config } = effective;
  const recordedTest = typeof run.config.test === 'string' ? run.config.test : null;
  const reproTarget = values.test ?? recordedTest;
  const { state, source } = loopStateFor(doc);

  const cap = capReached(
    { maxTurns: config.maxTurns ?? 30, maxTokens: config.maxTokens, maxCostUsd: config.maxCostUsd },
    { turns: state.turnsUsed, tokens: run.tokens_in + run.tokens_out, costUsd: run.cost_usd, wallS: 0 },
  );
  if (cap)
    throw new CommandError(
      `run ${run.id} has already reached its ${cap}`,
      'raise the cap for the rest of the run: --max-turns N, --max-tokens N or --max-cost-usd X',
    );

  const repliesUsed = doc.turns.filter((t) => t.idx !== null && t.raw_output !== null).length;
  const model = resumeModel({ flag: values.model, recorded: run.model, config, repo, repliesUsed });
  return {
    run,
    notes: taken.notes,
    // A foreign run's recorded image runs only as a replay's would (cli/ledger/replay-image.ts).
    foreignImage:
      !own && config.image === taken.settings.image
        ? { image: config.image, configured: taken.ownImage }
        : null,
    stateSource: source,
    trustWarning: effective.ignored.length ? ignoredWarning(effective) : null,
    input: {
      issue: run.issue ?? '',
      repo,
      config,
      reproTarget,
      model,
      resume: { runId: run.id, state, ...(values.answer !== undefined ? { answer: values.answer } : {}) },
    },
  };
}

function refuseUnresumable(
  run: FoundRun,
  observations: Array<{ kind: string; result: unknown }>,
  answer: string | undefined,
): void {
  if (run.kind === 'tool')
    throw new CommandError(
      `run ${run.id} is a tool run: one \`piper-agent tool\` call, which ended with it (${run.outcome ?? 'still running'}); there is no loop to continue`,
      `run the next call with piper-agent tool NAME 'ARGS_JSON' --run ${run.id}, or start a run with piper-agent fix`,
    );
  if (run.kind !== 'fix')
    throw new CommandError(
      `run ${run.id} is a ${run.kind} run; only fix runs continue`,
      'start a new run with piper-agent fix',
    );
  if (run.outcome === 'resolved') {
    throw new CommandError(
      `run ${run.id} is resolved: its repro test passed in the sandbox after its last edit, so there is nothing to resume`,
      `see it with piper-agent ledger show ${run.id}; undo it with piper-agent undo ${run.id}`,
    );
  }
  if (run.outcome === null) {
    const owner = parseOwner(run.owner);
    if (owner && ownerAlive(owner))
      throw new CommandError(
        `run ${run.id} is still running (process ${owner.pid} on ${owner.host})`,
        'wait for it to end, or stop that process first',
      );
  }
  if (run.outcome === 'ask_user' && answer === undefined) {
    const asked = askUserNoteSchema.safeParse(
      observations.filter((o) => o.kind === 'ask_user').at(-1)?.result,
    );
    throw new CommandError(
      `run ${run.id} is waiting for an answer to: ${asked.success ? asked.data.question : '(question not recorded)'}`,
      `piper-agent resume ${run.id} --answer "..."`,
    );
  }
}

/** The repository to work on: its own run's, a foreign run's only where its ledger is or --repo says. */
function repoOf(run: FoundRun, own: boolean, values: ResumeValues, ledgerFile: string): string {
  const repo = own ? (values.repo ?? run.repo) : foreignRepo(run, values.repo, ledgerFile);
  if (!repo || !existsSync(repo))
    throw new CommandError(
      `the run's repository ${repo ?? '(none recorded)'} is not there`,
      'pass --repo DIR',
    );
  if (!own) refuseForeignScript(run, values.model);
  return repo;
}

/** The recorded settings resume takes: all of its own run's, a foreign run's only up to the user's. */
function takenSettings(
  run: FoundRun,
  own: boolean,
  ledgerFile: string,
  where: { repo: string; values: ResumeValues },
): { settings: Config; notes: string[]; ownImage: string | undefined } {
  const recorded = recordedSettings(run, ledgerFile);
  if (own) return { settings: recorded, notes: [], ownImage: undefined };
  const mine = loadConfig({
    repo: where.repo,
    flags: flagsConfig(where.values),
    trustRepo: where.values['trust-repo-config'],
  }).config;
  return { ...foreignSettings(run, recorded, mine), ownImage: mine.image };
}

/** The run's own settings, as a config layer under the flags. The ledger is the one it is in. */
function recordedSettings(run: FoundRun, ledgerFile: string): Config {
  const c = run.config;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const settings: Config = {
    policy: run.policy === 'policy' || run.policy === 'current' ? run.policy : undefined,
    maxTurns: num(c.maxTurns),
    maxTokens: num(c.maxTokens),
    maxCostUsd: num(c.maxCostUsd),
    maxWallS: num(c.maxWallS),
    image: typeof c.image === 'string' ? c.image : undefined,
    approval: recordedApproval(run),
    test: typeof c.test === 'string' ? c.test : undefined,
    sampling: recordedSampling(c.sampling),
    ledger: ledgerFile,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as Config;
}

/** The sampling the run was recorded with (none before sampling was recorded: the default then). */
function recordedSampling(value: unknown): Config['sampling'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { temperature, maxCompletionTokens } = value as Record<string, unknown>;
  if (typeof maxCompletionTokens !== 'number') return undefined;
  if (temperature !== null && typeof temperature !== 'number') return undefined;
  return { temperature, maxCompletionTokens };
}

/** The approval mode the run started with; undefined for a run recorded before approvals existed. */
function recordedApproval(run: FoundRun): ApprovalMode | undefined {
  const mode = run.config.approval;
  return (APPROVAL_MODES as readonly unknown[]).includes(mode) ? (mode as ApprovalMode) : undefined;
}
