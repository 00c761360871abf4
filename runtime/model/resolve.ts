// `--model SPEC` → a ChatModel. Schemes: `openai:NAME` (the spec's JSON object in the message),
// `openai-tools:NAME` (native function calling), `script:FILE` (replay a JSONL script). There is
// deliberately no default base URL: silently sending an engineer's code to a provider they did not
// name is worse than asking them to set OPENAI_BASE_URL.
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Dispatcher } from 'undici';
import { OpenAIChatModel } from './openai-chat.js';
import type { PriceTable } from './pricing.js';
import type { RetryPolicy } from './retry.js';
import { loadScriptModel } from './script-model.js';
import { ModelError, type ChatModel } from './types.js';

export const MODEL_SCHEMES = ['openai', 'openai-tools', 'script'] as const;

/** Settings from the config file (or flags); each one, when set, wins over the environment. */
export interface ModelConfig {
  baseUrl?: string;
  apiKey?: string;
  prices?: PriceTable;
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
}

export interface ResolveOptions {
  /** Default process.env; read for OPENAI_BASE_URL, OPENAI_API_KEY and PIPER_MODEL. */
  env?: Readonly<Record<string, string | undefined>>;
  config?: ModelConfig;
  /** Where a relative script path is resolved. Default process.cwd(). */
  cwd?: string;
}

/** `spec` undefined or empty falls back to PIPER_MODEL. Throws ModelError `config` for what cannot work. */
export function resolveModel(spec: string | undefined, options: ResolveOptions = {}): ChatModel {
  const env = options.env ?? process.env;
  const config = options.config ?? {};
  const chosen = nonEmpty(spec) ?? nonEmpty(env.PIPER_MODEL);
  if (!chosen) {
    throw new ModelError('config', 'no model chosen', {
      fix: `pass --model SPEC or set PIPER_MODEL (${schemeList()})`,
    });
  }
  const colon = chosen.indexOf(':');
  const scheme = colon < 0 ? chosen : chosen.slice(0, colon);
  const rest = colon < 0 ? '' : chosen.slice(colon + 1).trim();

  switch (scheme) {
    case 'openai':
    case 'openai-tools': {
      if (!rest) {
        throw new ModelError('config', `the model spec ${JSON.stringify(chosen)} names no model`, {
          fix: `write it as ${scheme}:NAME, e.g. ${scheme}:deepseek-chat`,
        });
      }
      const baseUrl = nonEmpty(config.baseUrl) ?? nonEmpty(env.OPENAI_BASE_URL);
      if (!baseUrl) {
        throw new ModelError('config', `no base URL for ${chosen}`, {
          fix: 'set OPENAI_BASE_URL to the server root, e.g. https://api.deepseek.com/v1 (no default)',
        });
      }
      const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env.OPENAI_API_KEY);
      if (!apiKey) {
        throw new ModelError('config', `no API key for ${chosen}`, {
          fix: 'set OPENAI_API_KEY (any value for a local server that needs none)',
        });
      }
      return new OpenAIChatModel({
        baseUrl,
        apiKey,
        model: rest,
        protocol: scheme === 'openai-tools' ? 'tools' : 'json',
        prices: config.prices,
        retry: config.retry,
        dispatcher: config.dispatcher,
      });
    }
    case 'script': {
      if (!rest) {
        throw new ModelError('config', 'the script model names no file', {
          fix: 'write it as script:FILE.jsonl',
        });
      }
      const file = isAbsolute(rest) ? rest : resolvePath(options.cwd ?? process.cwd(), rest);
      return loadScriptModel(file, { id: `script:${rest}` });
    }
    default:
      throw new ModelError(
        'config',
        `unknown model scheme ${JSON.stringify(scheme)} in ${JSON.stringify(chosen)}`,
        {
          fix: `use one of ${schemeList()}`,
        },
      );
  }
}

function schemeList(): string {
  return MODEL_SCHEMES.map((s) => `${s}:${s === 'script' ? 'FILE' : 'NAME'}`).join(', ');
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
