// A run this machine did not record starting (runtime/host/own-runs.ts) is resumed as `replay` runs
// a recorded run: its ledger is data that may have come with the repository, not configuration. So
// nothing it names is taken above what the user's own configuration allows: not its approval mode
// (read-only, which only narrows, is kept), not a cap above the user's, not its sampling, not a model
// script (a path the host would open and read), not another repository. Its image is checked like a
// replay's (cli/ledger/replay-image.ts) before anything runs.
import { resolve } from 'node:path';
import type { ApprovalMode } from '../../policy/approval.js';
import type { Config } from '../../core/config.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { CommandError } from './command-error.js';
import type { FoundRun } from './find-run.js';

const RANK: Record<ApprovalMode, number> = { 'read-only': 0, ask: 1, auto: 2 };

type CapKey = 'maxTurns' | 'maxTokens' | 'maxCostUsd' | 'maxWallS';
const CAP_FLAGS: Record<CapKey, string> = {
  maxTurns: '--max-turns',
  maxTokens: '--max-tokens',
  maxCostUsd: '--max-cost-usd',
  maxWallS: 'PIPER_MAX_WALL_S=',
};

/**
 * The recorded settings a foreign run keeps, given the user's own configuration (with the flags):
 * each one left out is said in a note naming the flag that sets it.
 */
export function foreignSettings(
  run: FoundRun,
  recorded: Config,
  own: Config,
): { settings: Config; notes: string[] } {
  const settings: Config = { ...recorded };
  const notes: string[] = [];
  const why = `run ${run.id} was not started on this machine, so its ledger's settings are not taken above your configuration`;
  const theirMode = recorded.approval;
  // Unconfigured, the mode is decided by the terminal as for a new fix: only read-only is narrower.
  if (theirMode !== undefined && RANK[theirMode] > (own.approval ? RANK[own.approval] : RANK['read-only'])) {
    delete settings.approval;
    notes.push(
      `${why}: its approval mode ${theirMode} is left out (pass --approval ${theirMode} to resume with it)`,
    );
  }
  for (const key of Object.keys(CAP_FLAGS) as CapKey[]) {
    const [mine, theirs] = [own[key], recorded[key]];
    if (theirs === undefined || mine === undefined || theirs <= mine) continue;
    delete settings[key];
    const flag = CAP_FLAGS[key].endsWith('=') ? `${CAP_FLAGS[key]}N` : `${CAP_FLAGS[key]} N`;
    notes.push(`${why}: its cap ${key} ${theirs} is above yours (${mine}); set ${flag} to raise it`);
  }
  delete settings.sampling;
  return { settings, notes };
}

/** A foreign run's recorded model: a script is a host path, never opened because a ledger names it. */
export function refuseForeignScript(run: FoundRun, flag: string | undefined): void {
  if (flag !== undefined || !run.model?.startsWith('script:')) return;
  throw new CommandError(
    `run ${run.id} was not started on this machine and names the script model ${run.model}; resume does not open a file a ledger names: pass --model script:FILE (or another model) to continue it`,
  );
}

/**
 * A foreign run's recorded repository: only the one given by --repo, or the one whose ledger this
 * is, is worked on — the repository's default ledger in the state directory, or a `.piper/ledger.db`
 * inside it that the user named.
 */
export function foreignRepo(run: FoundRun, flag: string | undefined, ledgerFile: string): string {
  if (flag !== undefined) return flag;
  const file = resolve(ledgerFile);
  if (run.repo && (defaultLedgerPath(run.repo) === file || resolve(run.repo) === resolve(file, '..', '..')))
    return resolve(run.repo);
  throw new CommandError(
    `run ${run.id} was not started on this machine and names the repository ${run.repo ?? '(none)'}, not the one its ledger is in; pass --repo DIR to say which repository to work on`,
  );
}
