// The effective configuration of a command, and where each value came from. Precedence, lowest
// first: ~/.config/piper-agent/config.json < <repo>/.piper/config.json < environment
// (PIPER_*, OPENAI_API_KEY, OPENAI_BASE_URL) < command-line flags. Secrets are redacted on display.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PriceTableSchema } from '../runtime/model/pricing.js';
import { UsageError } from './exit-codes.js';

export const ConfigSchema = z
  .object({
    model: z.string().min(1),
    baseUrl: z.string().url(),
    apiKey: z.string().min(1),
    policy: z.enum(['policy', 'current']),
    maxTurns: z.number().int().min(1).max(500),
    maxCostUsd: z.number().min(0),
    maxTokens: z.number().int().min(1),
    maxWallS: z.number().min(1),
    output: z.enum(['text', 'json', 'stream-json']),
    image: z.string().min(1),
    test: z.string().min(1),
    ledger: z.string().min(1),
    /** USD per million tokens, by model name: { "deepseek-chat": { "promptPerMillion": 0.27, "completionPerMillion": 1.1 } }. */
    prices: PriceTableSchema,
  })
  .partial()
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigKey = keyof Config;
export type Source = 'default' | 'user' | 'repo' | 'env' | 'flag';

export const DEFAULTS: Config = { policy: 'policy', maxTurns: 30, maxWallS: 1800, output: 'text' };

const ENV: Array<[string, ConfigKey, 'string' | 'number']> = [
  ['PIPER_MODEL', 'model', 'string'],
  ['OPENAI_BASE_URL', 'baseUrl', 'string'],
  ['OPENAI_API_KEY', 'apiKey', 'string'],
  ['TOOL_POLICY', 'policy', 'string'],
  ['PIPER_POLICY', 'policy', 'string'],
  ['PIPER_MAX_TURNS', 'maxTurns', 'number'],
  ['PIPER_MAX_COST_USD', 'maxCostUsd', 'number'],
  ['PIPER_MAX_TOKENS', 'maxTokens', 'number'],
  ['PIPER_MAX_WALL_S', 'maxWallS', 'number'],
  ['PIPER_OUTPUT', 'output', 'string'],
  ['PIPER_IMAGE', 'image', 'string'],
  ['PIPER_TEST', 'test', 'string'],
  ['PIPER_LEDGER', 'ledger', 'string'],
];

const SECRETS: ConfigKey[] = ['apiKey'];

export interface Effective {
  config: Config;
  sources: Partial<Record<ConfigKey, Source>>;
  files: { user: string; repo: string };
}

export function loadConfig(opts: { repo: string; flags?: Config; env?: NodeJS.ProcessEnv }): Effective {
  const env = opts.env ?? process.env;
  const files = {
    user: join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'piper-agent', 'config.json'),
    repo: join(opts.repo, '.piper', 'config.json'),
  };
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
  apply(readFile(files.user), 'user');
  apply(readFile(files.repo), 'repo');
  apply(fromEnv(env), 'env');
  apply(checked(opts.flags ?? {}, 'command-line flags'), 'flag');
  return { config, sources, files };
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

function readFile(path: string): Config {
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return checked(raw, path);
}

function fromEnv(env: NodeJS.ProcessEnv): Config {
  const out: Record<string, unknown> = {};
  for (const [name, key, type] of ENV) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    out[key] = type === 'number' ? Number(v) : v;
  }
  return checked(out, 'the environment');
}

function checked(raw: unknown, where: string): Config {
  const parsed = ConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new UsageError(
    `bad configuration in ${where}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
  );
}
