// The effective configuration of a command, and where each value came from. Precedence, lowest
// first: ~/.config/piper-agent/config.json < <repo>/.piper/config.json < environment
// (PIPER_*, OPENAI_API_KEY, OPENAI_BASE_URL) < command-line flags. Secrets are redacted on display.
// The repository's file may only narrow unless the user trusts it (core/repo-config-trust/repo-narrowing.ts).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { readRepoFile as readRepoBytes } from '../runtime/host/inside-repo.js';
import { inert } from '../runtime/text/inert.js';
import { join } from 'node:path';
import { z } from 'zod';
import { guardSecrets } from '../runtime/text/output-guard.js';
import { ConfigSchema, type Config, type ConfigKey } from './config-schema.js';
import { ConfigError } from './exit-codes.js';
import { didYouMean } from './suggest.js';
import { narrowRepoLayer, type IgnoredKey } from './repo-config-trust/repo-narrowing.js';
import { repoFileTrusted, TrustedReposSchema, userConfigPath } from './repo-config-trust/trust-store.js';

export { ConfigSchema, type Config, type ConfigKey } from './config-schema.js';
export type Source = 'default' | 'user' | 'repo' | 'env' | 'flag';

const DEFAULTS: Config = { policy: 'policy', maxTurns: 30, maxWallS: 1800, output: 'text', sources: 'index' };

/** Each variable and its key; a `flag` is on only when the variable is exactly `1`. */
const ENV: Array<[string, ConfigKey, 'string' | 'number' | 'flag']> = [
  ['PIPER_MODEL', 'model', 'string'],
  ['OPENAI_BASE_URL', 'baseUrl', 'string'],
  ['OPENAI_API_KEY', 'apiKey', 'string'],
  ['TOOL_POLICY', 'policy', 'string'],
  ['PIPER_POLICY', 'policy', 'string'],
  ['PIPER_MAX_TURNS', 'maxTurns', 'number'],
  ['PIPER_MAX_COST_USD', 'maxCostUsd', 'number'],
  ['PIPER_MAX_TOKENS', 'maxTokens', 'number'],
  ['PIPER_MAX_WALL_S', 'maxWallS', 'number'],
  ['PIPER_SUITE_TIMEOUT_S', 'suiteTimeoutS', 'number'],
  ['PIPER_OUTPUT', 'output', 'string'],
  ['PIPER_IMAGE', 'image', 'string'],
  ['PIPER_TEST', 'test', 'string'],
  ['PIPER_LEDGER', 'ledger', 'string'],
  ['PIPER_SANDBOX_RUNTIME', 'sandboxRuntime', 'string'],
  ['RETRIEVE', 'retrieve', 'string'],
  ['PIPER_EMBED_MODEL', 'embedModel', 'string'],
  ['SYMBOL_CAMEL', 'symbolCamel', 'flag'],
  ['PIPER_APPROVAL', 'approval', 'string'],
  ['PIPER_SOURCES', 'sources', 'string'],
];

const SECRETS: ConfigKey[] = ['apiKey'];

/** The repository's config file, relative to its root: the name trust is remembered under. */
export const REPO_CONFIG_FILE = '.piper/config.json';

/** The user's file may also say which repository files the user trusts; no other layer may. */
const UserFileSchema = ConfigSchema.extend({ trustedRepos: TrustedReposSchema.optional() }).strict();

export interface Effective {
  config: Config;
  sources: Partial<Record<ConfigKey, Source>>;
  files: { user: string; repo: string };
  /** Repository keys left out because the user does not trust the file (empty when trusted). */
  ignored: IgnoredKey[];
  /** The configuration with the whole repository file applied: what trusting it gives. */
  ifTrusted: { config: Config; sources: Partial<Record<ConfigKey, Source>> };
  /** The repository file's bytes as read (trust is remembered for exactly these); null: no file. */
  repoBytes: Buffer | null;
}

export function loadConfig(opts: {
  repo: string;
  flags?: Config;
  env?: NodeJS.ProcessEnv;
  /** --trust-repo-config: apply the repository's file whole, for this command only. */
  trustRepo?: boolean;
}): Effective {
  const env = opts.env ?? process.env;
  const files = { user: userConfigPath(env), repo: join(opts.repo, '.piper', 'config.json') };
  const user = readUserFile(files.user);
  const repoBytes = readRepoFile(files.repo, opts.repo);
  const repo = repoBytes ? parsed(repoBytes, files.repo, ConfigSchema) : {};
  const envLayer = fromEnv(env);
  const flags = checked(opts.flags ?? {}, 'command-line flags');
  // Every API key given, whichever layer wins: none of them is ever shown on the terminal.
  guardSecrets([user.apiKey, repo.apiKey, envLayer.apiKey, flags.apiKey]);

  const compose = (repoLayer: Config) => {
    const config: Config = {};
    const sources: Effective['sources'] = {};
    const apply = (layer: Config, source: Source) => {
      for (const [k, v] of Object.entries(layer) as Array<[ConfigKey, unknown]>) {
        if (v === undefined) continue;
        (config as Record<string, unknown>)[k] = v;
        sources[k] = source;
      }
    };
    apply(DEFAULTS, 'default');
    apply(user, 'user');
    apply(repoLayer, 'repo');
    apply(envLayer, 'env');
    apply(flags, 'flag');
    return { config, sources };
  };

  const ifTrusted = compose(repo);
  const trusted =
    opts.trustRepo === true ||
    (repoBytes !== null && repoFileTrusted(opts.repo, REPO_CONFIG_FILE, repoBytes, env));
  if (trusted) return { ...ifTrusted, files, ignored: [], ifTrusted, repoBytes };
  const over = { ...envLayer, ...flags };
  const { accepted, ignored } = narrowRepoLayer(repo, {
    base: { ...DEFAULTS, ...user },
    overridden: new Set((Object.keys(over) as ConfigKey[]).filter((k) => over[k] !== undefined)),
    costCap: (narrowed) => over.maxCostUsd ?? narrowed.maxCostUsd ?? user.maxCostUsd ?? null,
    repoRoot: opts.repo,
    cwd: process.cwd(),
  });
  return { ...compose(accepted), files, ignored, ifTrusted, repoBytes };
}

export function redacted(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of SECRETS) {
    const v = config[key];
    if (typeof v === 'string')
      out[key] = v.length > 8 ? `${v.slice(0, 3)}…${v.slice(-2)} (redacted)` : '(redacted)';
  }
  return out;
}

/** The user's file without its trust list (which is not configuration). */
function readUserFile(path: string): Config {
  if (!existsSync(path)) return {};
  const { trustedRepos: _trusted, ...config } = parsed(readFileSync(path), path, UserFileSchema);
  return config;
}

/**
 * The repository file's bytes, through the one bounded reader: a link to a file outside the
 * repository or a file over the limit is refused; a FIFO or a device is skipped with a note.
 */
function readRepoFile(path: string, repoRoot: string): Buffer | null {
  if (!existsSync(repoRoot)) return null;
  const bytes = readRepoBytes(realpathSync(repoRoot), REPO_CONFIG_FILE, 'config');
  if (Buffer.isBuffer(bytes)) return bytes;
  if (bytes.kind === 'missing') return null;
  if (bytes.kind === 'special') {
    noteOnce(`piper-agent: note: ${inert(bytes.error)}; the repository's configuration is ignored`);
    return null;
  }
  if (bytes.kind === 'outside')
    throw new ConfigError(`config file ${path} is a link to a file outside the repository; remove the link`);
  throw new ConfigError(inert(bytes.error));
}

const noted = new Set<string>();
function noteOnce(line: string): void {
  if (noted.has(line)) return;
  noted.add(line);
  process.stderr.write(`${line}\n`);
}

function parsed<T extends z.ZodType<Config>>(bytes: Buffer, path: string, schema: T): z.infer<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(badConfig(path, result.error.issues[0]!));
}

function fromEnv(env: NodeJS.ProcessEnv): Config {
  const out: Record<string, unknown> = {};
  for (const [name, key, type] of ENV) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    out[key] = type === 'number' ? Number(v) : type === 'flag' ? v === '1' : v;
  }
  return checked(out, 'the environment');
}

function checked(raw: unknown, where: string): Config {
  const result = ConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(badConfig(where, result.error.issues[0]!));
}

function badConfig(where: string, issue: z.core.$ZodIssue): string {
  const text = `bad configuration in ${where}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`;
  // A misspelt top-level key (`maxTurn`): the key that was meant, in the same line.
  if (issue.code !== 'unrecognized_keys' || issue.path.length > 0) return text;
  const known = [...Object.keys(ConfigSchema.shape), 'trustedRepos'];
  return text + didYouMean(issue.keys[0] ?? '', known);
}
