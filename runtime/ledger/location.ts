// Where the ledger lives: --ledger, else PIPER_LEDGER, else the user's state directory, one file per
// repository. A repository's files are never piper's records: a ledger inside the checkout could
// have come with it (a committed `.piper/ledger.db`), and what piper reuses from its ledger — the
// regression gate's "before" suite run, a cached environment's shortfalls — would then be whatever
// the repository's author wrote there. So the default is outside every repository, keyed by the
// repository's real path, and a file git tracks is never opened, whoever names it (tracked.ts).
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { trackedBy } from './tracked.js';

/** A ledger that lives and dies with the process: what a command records outside any repository. */
export const IN_MEMORY_LEDGER = ':memory:';

/** The file the ledger was kept in before it moved to the state directory. */
const LEGACY_LEDGER = join('.piper', 'ledger.db');

export function ledgerPath(opts: { flag?: string; repo: string }): string {
  if (opts.flag === IN_MEMORY_LEDGER) return IN_MEMORY_LEDGER;
  if (opts.flag) return resolve(opts.flag);
  if (process.env.PIPER_LEDGER) return resolve(process.env.PIPER_LEDGER);
  return defaultLedgerPath(opts.repo);
}

/**
 * The directory of the default ledgers: `ledgers/` in piper's state directory — PIPER_STATE_DIR,
 * else `$XDG_STATE_HOME/piper-agent` (an absolute one; the XDG spec says a relative one is
 * ignored), else `~/.local/state/piper-agent`. Ledger.open creates it owner-only (0700): a ledger
 * holds issues, prompts and the repository's code.
 */
export function ledgerDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PIPER_STATE_DIR) return join(resolve(env.PIPER_STATE_DIR), 'ledgers');
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(base, 'piper-agent', 'ledgers');
}

/**
 * The default ledger of the repository at `repo`: `<sha256 of its real path, 16 hex>-<its name>.db`.
 * The digest keeps two checkouts of one name apart (and every command run anywhere inside one
 * checkout on the same file); the name is there for a person listing the directory.
 */
export function defaultLedgerPath(repo: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = realOrResolved(repo);
  const digest = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return join(ledgerDirectory(env), `${digest}-${fileSafe(basename(root))}.db`);
}

/**
 * One line for a repository that still holds a `.piper/ledger.db` of its own that git does not
 * track (an earlier piper-agent's ledger, or one the user kept): it is no longer read, and where
 * the ledger is now. Said only while `inUse` is the repository's default ledger and does not exist
 * yet — once, before the first command that writes it. Null otherwise, and when git tracks the old
 * file (the repository's, not the user's: nothing to say). The old file is never opened here.
 */
export function movedLedgerNote(repo: string, inUse: string): string | null {
  if (inUse !== defaultLedgerPath(repo) || existsSync(inUse)) return null;
  const legacy = join(resolve(repo), LEGACY_LEDGER);
  try {
    if (!lstatSync(legacy).isFile()) return null;
  } catch {
    return null;
  }
  if (trackedBy(legacy) !== null) return null;
  return `the ledger of ${resolve(repo)} is now ${inUse}; its ${LEGACY_LEDGER} is no longer read (pass --ledger ${legacy} to read the runs in it)`;
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A directory name as part of a file name: letters, digits, `.`, `_`, `-`, at most 64 of them. */
function fileSafe(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return safe === '' || /^\.+$/.test(safe) ? 'root' : safe;
}
