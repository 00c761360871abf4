// Where the ledger lives: --ledger, else PIPER_LEDGER, else .piper/ledger.db under the target repo.
import { resolve } from 'node:path';

export function ledgerPath(opts: { flag?: string; repo: string }): string {
  if (opts.flag) return resolve(opts.flag);
  if (process.env.PIPER_LEDGER) return resolve(process.env.PIPER_LEDGER);
  return resolve(opts.repo, '.piper', 'ledger.db');
}
