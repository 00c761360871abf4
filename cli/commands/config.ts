// `piper-agent config`: the configuration a command would run with, each value with the layer it
// came from, secrets redacted, and the two config files with whether they exist — so "why did it
// use that model?" has an answer without reading four places by hand.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../runtime/host/git.js';
import {
  ConfigSchema,
  loadConfig,
  redacted,
  type Config,
  type ConfigKey,
  type Source,
} from '../../core/config.js';
import { EXIT } from '../../core/exit-codes.js';
import { shownValue } from '../repo-config-trust/trust-question.js';
import { FIX_OPTIONS, flagsConfig } from './fix.js';

export const CONFIG_HELP = `Usage: piper-agent config [--json] [--repo DIR] [fix's options]

Prints the effective configuration and where each value came from, lowest precedence first:
  default   built in
  user      ~/.config/piper-agent/config.json ($XDG_CONFIG_HOME/piper-agent/config.json when set)
  repo      <repo>/.piper/config.json
  env       PIPER_MODEL, PIPER_POLICY (or TOOL_POLICY), PIPER_MAX_TURNS, PIPER_MAX_COST_USD,
            PIPER_MAX_TOKENS, PIPER_MAX_WALL_S, PIPER_OUTPUT, PIPER_IMAGE, PIPER_TEST, PIPER_LEDGER,
            PIPER_SANDBOX_RUNTIME, OPENAI_API_KEY, OPENAI_BASE_URL, RETRIEVE (retrieve: lexical or
            embed), PIPER_EMBED_MODEL (embedModel), SYMBOL_CAMEL (symbolCamel: on when 1),
            PIPER_SOURCES (sources: index or debian, where an environment's packages come from)
  flag      fix's options given here (--model, --policy, ...) show what that fix would use
Secrets (the API key, a password in a base URL) are redacted.

A repository's file may only narrow: its apiKey, baseUrl, image, sandboxRuntime, ledger and embedModel, prices
lower than yours, caps above yours, and a model script from outside the repository are shown as
"ignored: repository config not trusted" until you trust the file (fix asks on a terminal, or
--trust-repo-config for one command).

  --json               {config, sources, files, ignored} as JSON
  --repo DIR           the repository whose .piper/config.json counts (default: the git root of the current directory)
  --trust-repo-config  show the configuration with the repository's file applied whole

Exit status: 0 ok; 2 a config file, variable or flag is invalid (the message names it).`;

// fix's options except --non-interactive and --verbose, which configure nothing.
const { 'non-interactive': _nonInteractive, verbose: _verbose, ...FLAG_OPTIONS } = FIX_OPTIONS;
const OPTIONS = { ...FLAG_OPTIONS, json: { type: 'boolean', default: false } } as const;

export interface ConfigReport {
  config: Record<string, unknown>;
  sources: Partial<Record<ConfigKey, Source>>;
  files: { user: { path: string; exists: boolean }; repo: { path: string; exists: boolean } };
  /** Repository keys left out because the file is not trusted: the value as shown, and why. */
  ignored: Array<{ key: ConfigKey; value: string; reason: string }>;
}

export function configReport(opts: {
  repo: string;
  flags?: Config;
  env?: NodeJS.ProcessEnv;
  trustRepo?: boolean;
}): ConfigReport {
  const effective = loadConfig(opts);
  const config = redacted(effective.config);
  if (typeof config.baseUrl === 'string') config.baseUrl = withoutPassword(config.baseUrl);
  return {
    config,
    sources: effective.sources,
    files: {
      user: { path: effective.files.user, exists: existsSync(effective.files.user) },
      repo: { path: effective.files.repo, exists: existsSync(effective.files.repo) },
    },
    ignored: effective.ignored.map((k) => ({
      key: k.key,
      value: k.key === 'baseUrl' && typeof k.value === 'string' ? withoutPassword(k.value) : shownValue(k),
      reason: k.reason,
    })),
  };
}

export function renderConfigReport(report: ConfigReport): string {
  const keys = Object.keys(ConfigSchema.shape) as ConfigKey[];
  const values = keys.map((k) => {
    const v = report.config[k];
    return [
      k,
      v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v),
      report.sources[k] ?? '',
    ] as const;
  });
  const kw = Math.max(...keys.map((k) => k.length));
  const vw = Math.min(60, Math.max(...values.map(([, v]) => v.length)));
  const file = (name: string, f: { path: string; exists: boolean }) =>
    `  ${name.padEnd(5)} ${f.path}  (${f.exists ? 'found' : 'not found'})`;
  const ignored = report.ignored.length
    ? [
        '',
        `set by ${report.files.repo.path} but left out (trust the file: fix asks on a terminal, or --trust-repo-config):`,
        ...report.ignored.map(
          (k) =>
            `  ${k.key.padEnd(kw)}  ${k.value.padEnd(vw)}  ignored: repository config not trusted (${k.reason})`,
        ),
      ]
    : [];
  return [
    'effective configuration (precedence, lowest first: default < user < repo < env < flag)',
    '',
    ...values.map(([k, v, s]) => `  ${k.padEnd(kw)}  ${v.padEnd(vw)}  ${s}`.trimEnd()),
    ...ignored,
    '',
    'config files:',
    file('user', report.files.user),
    file('repo', report.files.repo),
  ].join('\n');
}

export async function configCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const { json, 'trust-repo-config': trustRepo, ...flags } = values;
  const report = configReport({ repo: values.repo ?? repoRoot(), flags: flagsConfig(flags), trustRepo });
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : `${renderConfigReport(report)}\n`);
  return EXIT.ok;
}

/** https://user:secret@host/v1 → https://user:(redacted)@host/v1 */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '(redacted)';
    return parsed.toString();
  } catch {
    return url;
  }
}
