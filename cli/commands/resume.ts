// `piper-agent resume RUN --answer TEXT`: continues a fix run that stopped on ask_user (or whose
// process died) from the ledger, with the run's own settings unless flags override them. The run
// keeps its id: its turns, calls and edits go on in the same record.
import { parseArgs } from 'node:util';
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { inert } from '../../runtime/text/inert.js';
import { checkReplayImage } from '../ledger/replay-image.js';
import { RepoLock } from '../../runtime/host/repo-lock.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { reopenRun, restoreEnding, type Reopened } from '../../runtime/ledger/runs.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { UsageError } from '../../core/exit-codes.js';
import { reportingRefusals } from '../ledger/command-error.js';
import { openLedgerAt } from '../ledger/find-run.js';
import { planResume, type ResumePlan } from '../ledger/resume-plan.js';
import { writeRunOutputs } from '../ci/run-outputs.js';
import { environmentFlags } from '../../core/env-option.js';
import { FIX_OPTIONS, patchOutPath, runWithRenderer } from './fix.js';

export const RESUME_HELP = `Usage: piper-agent resume RUN [--answer TEXT] [options]

Continues a fix run from the ledger: one that stopped on a question (ask_user), or whose process
died or was interrupted, or that stopped or hit a cap (raise the cap with the flags). The run keeps
its id, its repository, repro test, policy, caps, image and issue text; flags given here override
them. Its own model continues it (a script model goes on after the replies it already used) unless
--model names another. A run this machine did not record starting (a ledger that came with a
repository, or a row edited since) is data, not configuration: its model script is not opened, its
image runs only if piper built it or your configuration names it, its approval mode and caps count
only up to yours; each refusal says the flag that overrides it (docs/security.md).

  RUN                  the run id (or a unique prefix), as printed by fix and \`piper-agent ledger runs\`
  --answer TEXT        the answer to the run's question, recorded as a user observation; required
                       when the run is waiting for one
  --repo DIR           the repository whose ledger the run is in, and the one to work on
                       (default: the run's own repository; the ledger of the current git root)
  --ledger PATH        the ledger file the run is in  [env PIPER_LEDGER]
  --model, --base-url, --test, --max-turns, --max-cost-usd, --max-tokens, --policy, --output,
  --non-interactive, --image, --env, --trust-repo-config, --patch-out FILE, --verbose    as for fix (resume does not
                       ask about the repository's config: a file you have not trusted keeps only what
                       narrows; --patch-out holds all of the run's edits, before the resume and after;
                       GITHUB_STEP_SUMMARY gets a summary as for fix)

Exit status: as for fix — 0 resolved and verified; 1 internal error; 2 usage error, or a run that
cannot be resumed (unknown, resolved, still running, waiting for --answer, at a cap), or another
run live on the repository; 3 needs input again; 4 stopped or capped without a verified fix, or regressed; 5 no
sandbox engine.`;

const OPTIONS = { ...FIX_OPTIONS, answer: { type: 'string' } } as const;

export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length ? 'resume takes one run id' : 'resume needs the id of the run to continue',
    );
  if (values.answer !== undefined && values.answer.trim() === '') throw new UsageError('--answer is empty');
  const patchOut = patchOutPath(values);

  return reportingRefusals(async () => {
    const ledger = openLedgerAt({ ledger: values.ledger, repo: values.repo });
    let plan: ResumePlan;
    let ending: Reopened;
    let lock: RepoLock;
    try {
      plan = planResume(ledger, positionals[0]!, values);
      for (const note of plan.notes) process.stderr.write(`note: ${inert(note)}\n`);
      if (plan.foreignImage)
        await checkReplayImage({
          runId: plan.run.id,
          ...plan.foreignImage,
          engine: (await connectEngine()).engine,
          command: 'resume',
        });
      // Before the run is reopened: while another run is live on the repository, nothing changes.
      lock = RepoLock.acquire(plan.input.repo, { command: 'resume', runId: plan.run.id });
      // The new owner goes in before any session opens, so its start-up sweep sees a live run.
      ending = reopenRun(ledger, plan.run.id, formatOwner(currentOwner()), plan.run.outcome);
    } finally {
      ledger.close();
    }
    if (plan.trustWarning) process.stderr.write(`${plan.trustWarning}\n`);
    process.stderr.write(
      `resuming run ${plan.run.id} (was ${ending.previousOutcome ?? 'unfinished'}) after ${plan.input.resume!.state.turnsUsed} turn(s); loop state ${plan.stateSource === 'saved' ? 'as the run saved it' : 'rebuilt from the ledger'}\n`,
    );
    try {
      const env = environmentFlags(plan.input.repo, values);
      const result = await runWithRenderer({ ...plan.input, lock, env }, values);
      writeRunOutputs('resume', result, patchOut);
      return result.exit_code;
    } catch (error) {
      // Failed before its loop could end it (no engine, no image): the run ends as it was.
      const again = Ledger.open(plan.input.config.ledger!);
      try {
        restoreEnding(again, plan.run.id, ending);
      } finally {
        again.close();
      }
      throw error;
    } finally {
      lock.release();
    }
  });
}
