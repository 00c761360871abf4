// The `--env` flag every command that runs sandboxes takes, whether the repository's recipe may use
// the settings that need the user's trust (its index URLs and setup commands), and where the
// environment's packages come from (`--sources`, over the `sources` configuration key).
import { realpathSync } from 'node:fs';
import { readRepoFile } from '../runtime/host/inside-repo.js';
import type { EnvMode } from '../runtime/env/choose/ensure.js';
import type { SourcesSetting } from '../runtime/env/spec/prepare-spec.js';
import { ENV_SOURCES, type EnvSources } from '../runtime/env/plan/types.js';
import { loadConfig } from './config.js';
import { UsageError } from './exit-codes.js';
import { repoFileTrusted } from './repo-config-trust/trust-store.js';

const RECIPE_FILE = '.piper/sandbox.toml';

export const ENV_FLAG_HELP = `  --env MODE         the project environment: auto (default: build or reuse it from the project's
                     dependency files and .piper/sandbox.toml), base (the bare sandbox image),
                     rebuild (build it again even when one exists), strict (auto, but a
                     requirement no source meets fails the build instead of being relaxed or
                     left out; also \`strict = true\` in .piper/sandbox.toml)
  --sources SOURCES  where the environment's packages come from: index (default: pip from the
                     index, as a clean venv in CI gets them, Debian's packages for what it does
                     not give; when the index does not answer, a fallback build from Debian's,
                     built again once it answers) or debian (Debian's packages, the index never
                     asked); also PIPER_SOURCES, the sources key, \`sources\` in .piper/sandbox.toml
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
  sources: { type: 'string' },
  'trust-repo-config': { type: 'boolean', default: false },
} as const;

/** What `openSession` needs from those flags. */
export interface EnvironmentFlags {
  mode: EnvMode;
  trustRecipe: boolean;
  /** Absent: the default, `index`. */
  sources?: SourcesSetting;
}

export function environmentFlags(
  repo: string,
  values: { env?: string; sources?: string; 'trust-repo-config'?: boolean },
): EnvironmentFlags {
  return {
    mode: envMode(values.env),
    trustRecipe: recipeTrusted(repo, values['trust-repo-config']),
    sources: sourcesSetting(repo, values),
  };
}

/** `--sources` as given: index or debian. */
export function sourcesFlag(value: string | undefined): EnvSources | undefined {
  if (value === undefined || (ENV_SOURCES as readonly string[]).includes(value))
    return value as EnvSources | undefined;
  throw new UsageError(`--sources must be index or debian, got ${JSON.stringify(value)}`);
}

/**
 * The `sources` setting through the configuration's layers (core/config.ts: default < your file <
 * the repository's, which may only narrow < PIPER_SOURCES < --sources), and the layer it came from.
 */
export function sourcesSetting(
  repo: string,
  values: { sources?: string; 'trust-repo-config'?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): SourcesSetting {
  const flag = sourcesFlag(values.sources);
  const effective = loadConfig({
    repo,
    env,
    flags: flag ? { sources: flag } : {},
    ...(values['trust-repo-config'] ? { trustRepo: true } : {}),
  });
  return { value: effective.config.sources ?? 'index', from: effective.sources.sources ?? 'default' };
}
