// The `--env` flag every command that runs sandboxes takes, and whether the repository's recipe
// may use the settings that need the user's trust (its index URLs and setup commands).
import { realpathSync } from 'node:fs';
import { readRepoFile } from '../../runtime/host/inside-repo.js';
import type { EnvMode } from '../../runtime/env/choose/ensure.js';
import { UsageError } from '../exit-codes.js';
import { repoFileTrusted } from '../repo-config-trust/trust-store.js';

const RECIPE_FILE = '.piper/sandbox.toml';

export const ENV_FLAG_HELP = `  --env MODE         the project environment: auto (default: build or reuse it from the project's
                     dependency files and .piper/sandbox.toml), base (the bare sandbox image),
                     rebuild (build it again even when one exists), strict (auto, but a
                     requirement no source meets fails the build instead of being relaxed or
                     left out; also \`strict = true\` in .piper/sandbox.toml)
  --trust-repo-config  let the repository's .piper/ files use settings that need trust (its
                     index URLs and setup commands; see docs/security.md)`;

export function envMode(value: string | undefined): EnvMode {
  const mode = value ?? process.env.PIPER_ENV ?? 'auto';
  if (mode === 'auto' || mode === 'base' || mode === 'rebuild' || mode === 'strict') return mode;
  throw new UsageError(`--env must be auto, base, rebuild or strict, got ${JSON.stringify(mode)}`);
}

/** The recipe's trust-needing settings apply when the flag says so or the user trusted these exact bytes. */
export function recipeTrusted(repoRoot: string, flag: boolean | undefined): boolean {
  if (flag) return true;
  // Through the one bounded reader: a link out, a FIFO or a device there is never trusted, nor read.
  let bytes;
  try {
    bytes = readRepoFile(realpathSync(repoRoot), RECIPE_FILE, 'declaration');
  } catch {
    return false;
  }
  return Buffer.isBuffer(bytes) && repoFileTrusted(repoRoot, RECIPE_FILE, bytes);
}

/** The parseArgs options behind ENV_FLAG_HELP. */
export const ENV_PARSE_OPTIONS = {
  env: { type: 'string' },
  'trust-repo-config': { type: 'boolean', default: false },
} as const;

/** What `openSession` needs from those flags. */
export function environmentFlags(
  repo: string,
  values: { env?: string; 'trust-repo-config'?: boolean },
): { mode: EnvMode; trustRecipe: boolean } {
  return { mode: envMode(values.env), trustRecipe: recipeTrusted(repo, values['trust-repo-config']) };
}
