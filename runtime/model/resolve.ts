// `--model SPEC` → a ChatModel. Schemes: `openai:NAME` (the spec's JSON object in the message),
// `openai-tools:NAME` (native function calling), `anthropic:NAME` (Anthropic's Messages API, native
// tool use), `script:FILE` (replay a JSONL script); a bare `NAME` (`gpt-4.1`) is `openai:NAME`, as
// the tools engineers know take it. The OpenAI endpoint defaults to OpenAI's public one only when
// OPENAI_API_KEY is set and no base URL is: a key is a statement of which provider the user means.
// With neither there is no default, since sending an engineer's code to a provider they did not
// name is worse than asking.
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Dispatcher } from 'undici';
import { AnthropicMessagesModel } from './anthropic-messages.js';
import { OpenAIChatModel } from './openai-chat.js';
import type { PriceTable } from './pricing.js';
import { ANTHROPIC, OPENAI, type Provider } from './provider.js';
import type { RetryPolicy } from './retry.js';
import { loadScriptModel } from './script-model.js';
import { ModelError, type ChatModel } from './types.js';

const MODEL_SCHEMES = ['openai', 'openai-tools', 'anthropic', 'script'] as const;

/** Settings from the config file (or flags); each one, when set, wins over the environment. */
interface ModelConfig {
  /** The OpenAI-compatible server (config `baseUrl`); Anthropic's comes from ANTHROPIC_BASE_URL. */
  baseUrl?: string;
  /** The OpenAI-compatible key (config `apiKey`); never sent to Anthropic. */
  apiKey?: string;
  prices?: PriceTable;
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
}

export interface ResolveOptions {
  /** Default process.env; read for OPENAI_*, ANTHROPIC_* and PIPER_MODEL. */
  env?: Readonly<Record<string, string | undefined>>;
  config?: ModelConfig;
  /** Where a relative script path is resolved. Default process.cwd(). */
  cwd?: string;
}

/** Where an HTTP model would be sent, without building it: what `doctor` probes. */
export interface ModelEndpoint {
  provider: Provider;
  baseUrl: string;
  apiKey: string;
  /** The model name the server knows. */
  name: string;
  /** Whether the base URL is the provider's public default (no base URL was set). */
  defaulted: boolean;
}

/** A spec split into its scheme and the rest; a bare name is `openai`. */
export function splitSpec(spec: string): { scheme: string; rest: string } {
  const colon = spec.indexOf(':');
  if (colon < 0) return { scheme: 'openai', rest: spec.trim() };
  return { scheme: spec.slice(0, colon), rest: spec.slice(colon + 1).trim() };
}

export function resolveModel(spec: string | undefined, options: ResolveOptions = {}): ChatModel {
  const env = options.env ?? process.env;
  const config = options.config ?? {};
  const chosen = nonEmpty(spec) ?? nonEmpty(env.PIPER_MODEL);
  if (!chosen) {
    throw new ModelError('config', 'no model chosen', {
      fix: `pass --model SPEC or set PIPER_MODEL (${schemeList()})`,
    });
  }
  const { scheme, rest } = splitSpec(chosen);

  switch (scheme) {
    case 'openai':
    case 'openai-tools':
    case 'anthropic': {
      const endpoint = modelEndpoint(chosen, { env, config });
      const common = {
        baseUrl: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        model: endpoint.name,
        prices: config.prices,
        retry: config.retry,
        dispatcher: config.dispatcher,
      };
      if (scheme === 'anthropic') return new AnthropicMessagesModel(common);
      return new OpenAIChatModel({ ...common, protocol: scheme === 'openai-tools' ? 'tools' : 'json' });
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
          fix: `use one of ${schemeList()}, or a bare NAME; a name with a colon in it (llama3:8b) is written openai:llama3:8b`,
        },
      );
  }
}

/**
 * The endpoint, key and model name an HTTP spec (`openai:`, `openai-tools:`, `anthropic:`, bare)
 * resolves to. Throws ModelError `config` naming exactly what to set.
 */
export function modelEndpoint(
  spec: string,
  options: Pick<ResolveOptions, 'env' | 'config'> = {},
): ModelEndpoint {
  const env = options.env ?? process.env;
  const config = options.config ?? {};
  const { scheme, rest } = splitSpec(spec);
  if (!rest) {
    throw new ModelError('config', `the model spec ${JSON.stringify(spec)} names no model`, {
      fix: `write it as ${scheme}:NAME, e.g. ${scheme === 'anthropic' ? 'anthropic:claude-sonnet-4-5' : `${scheme}:gpt-4.1`}`,
    });
  }
  const anthropic = scheme === 'anthropic';
  const provider = anthropic ? ANTHROPIC : OPENAI;
  // The config's baseUrl / apiKey are the OpenAI-compatible server's; Anthropic's come from its own
  // variables, so an OpenAI key is never sent to another provider.
  const setUrl = anthropic
    ? nonEmpty(env.ANTHROPIC_BASE_URL)
    : (nonEmpty(config.baseUrl) ?? nonEmpty(env.OPENAI_BASE_URL));
  const apiKey = anthropic
    ? nonEmpty(env.ANTHROPIC_API_KEY)
    : (nonEmpty(config.apiKey) ?? nonEmpty(env.OPENAI_API_KEY));
  if (!setUrl && !apiKey) {
    throw new ModelError('config', `no API key and no base URL for ${spec}`, {
      fix: anthropic
        ? `set ANTHROPIC_API_KEY (the endpoint defaults to ${ANTHROPIC.defaultBaseUrl}; ANTHROPIC_BASE_URL for another)`
        : `set OPENAI_API_KEY for OpenAI (${OPENAI.defaultBaseUrl}), or OPENAI_BASE_URL and OPENAI_API_KEY for another OpenAI-compatible server (any key value for a local server that needs none)`,
    });
  }
  if (!apiKey) {
    throw new ModelError('config', `no API key for ${spec}`, {
      fix: anthropic
        ? 'set ANTHROPIC_API_KEY (any value for a local server that needs none)'
        : 'set OPENAI_API_KEY (any value for a local server that needs none)',
    });
  }
  return { provider, baseUrl: setUrl ?? provider.defaultBaseUrl, apiKey, name: rest, defaulted: !setUrl };
}

function schemeList(): string {
  return MODEL_SCHEMES.map((s) => `${s}:${s === 'script' ? 'FILE' : 'NAME'}`).join(', ');
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
