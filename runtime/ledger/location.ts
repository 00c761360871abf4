// Where the ledger lives: --ledger, else PIPER_LEDGER, else .piper/ledger.db under the target repo.
import { resolve } from 'node:path';

/** A ledger that lives and dies with the process: what a command records outside any repository. */
export const IN_MEMORY_LEDGER = ':memory:';

export function ledgerPath(opts: { flag?: string; repo: string }): string {
  if (opts.flag === IN_MEMORY_LEDGER) return IN_MEMORY_LEDGER;
  if (opts.flag) return resolve(opts.flag);
  if (process.env.PIPER_LEDGER) return resolve(process.env.PIPER_LEDGER);
  return resolve(opts.repo, '.piper', 'ledger.db');
}
