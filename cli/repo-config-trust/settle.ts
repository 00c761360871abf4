// Deciding, before a run starts, what happens to the repository keys that need the user's trust:
// on a terminal the user is asked once (the answer yes is remembered for exactly that file's
// bytes); headless they are left out with one warning line, unless --trust-repo-config was given
// (then loadConfig applied them already).
import { REPO_CONFIG_FILE, type Config, type Effective } from '../../core/config.js';
import { inert } from '../../runtime/text/inert.js';
import type { TrustQuestion } from './trust-question.js';
import { rememberTrust } from '../../core/repo-config-trust/trust-store.js';

export async function settleRepoTrust(
  effective: Effective,
  opts: {
    repo: string;
    interactive: boolean;
    log: (line: string) => void;
    /** Asks on the terminal; default: the TUI prompt. */
    ask?: (question: TrustQuestion) => Promise<boolean>;
    env?: NodeJS.ProcessEnv;
  },
): Promise<Config> {
  if (effective.ignored.length === 0 || effective.repoBytes === null) return effective.config;
  if (!opts.interactive) {
    opts.log(ignoredWarning(effective));
    return effective.config;
  }
  const ask = opts.ask ?? (await import('../tui/repo-config-trust-prompt.js')).askRepoTrust;
  if (!(await ask({ file: effective.files.repo, keys: effective.ignored }))) return effective.config;
  rememberTrust(opts.repo, REPO_CONFIG_FILE, effective.repoBytes, opts.env);
  return effective.ifTrusted.config;
}

/** The one line a headless command prints about the keys it left out. */
export function ignoredWarning(effective: Pick<Effective, 'ignored' | 'files'>): string {
  const keys = effective.ignored.map((k) => k.key).join(', ');
  return `piper-agent: ignoring ${keys} from ${inert(effective.files.repo)}: repository config not trusted (pass --trust-repo-config to use them)`;
}
