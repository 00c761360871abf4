// `doctor`'s model check, for real: one cheap request to the configured endpoint — the models list
// (GET {base}/models, Anthropic's GET /v1/models), or, where a server has no list, a 1-token
// completion — so a refused key, an unreachable URL and an unknown model are each named with their
// fix before a run spends anything. A scripted model is checked by loading its script.
import { loadConfig } from '../../core/config.js';
import { getJson, postJson, type Endpoint, type JsonReply } from '../../runtime/model/http-json.js';
import { modelEndpoint, resolveModel, splitSpec, type ModelEndpoint } from '../../runtime/model/resolve.js';
import type { AttemptResult } from '../../runtime/model/retry.js';
import { isModelError } from '../../runtime/model/types.js';

export interface ModelCheck {
  name: 'model';
  ok: boolean;
  detail: string;
  fix?: string;
}

export interface ModelCheckOptions {
  repo: string;
  env?: NodeJS.ProcessEnv;
  /** The one request's time limit. */
  timeoutMs?: number;
}

const NO_MODEL_FIX =
  'set PIPER_MODEL=NAME with OPENAI_API_KEY (OpenAI; OPENAI_BASE_URL for another compatible server), ' +
  'PIPER_MODEL=anthropic:NAME with ANTHROPIC_API_KEY, or PIPER_MODEL=script:FILE.jsonl (a scripted model)';

export async function checkModel(options: ModelCheckOptions): Promise<ModelCheck> {
  const env = options.env ?? process.env;
  let spec: string | undefined;
  let config: { baseUrl?: string; apiKey?: string } = {};
  try {
    const loaded = loadConfig({ repo: options.repo, env }).config;
    spec = loaded.model;
    config = { baseUrl: loaded.baseUrl, apiKey: loaded.apiKey };
  } catch (error) {
    return problem((error as Error).message, 'fix the configuration (see piper-agent config)');
  }
  if (!spec) return problem('no model configured', NO_MODEL_FIX);
  const { scheme } = splitSpec(spec);
  try {
    if (scheme === 'script') {
      resolveModel(spec, { env, config });
      return { name: 'model', ok: true, detail: `${spec} (scripted replies, no endpoint)` };
    }
    if (scheme !== 'openai' && scheme !== 'openai-tools' && scheme !== 'anthropic') {
      resolveModel(spec, { env, config }); // throws the unknown-scheme error with its fix
    }
    return await probe(modelEndpoint(spec, { env, config }), options.timeoutMs ?? 10_000);
  } catch (error) {
    if (isModelError(error, 'config')) {
      // The error's message ends with its fix; doctor shows the two on their own lines.
      const suffix = error.fix ? `; ${error.fix}` : '';
      const detail =
        suffix && error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message;
      return problem(detail, error.fix);
    }
    throw error;
  }
}

/** The models list, else a 1-token completion; each outcome named with its fix. */
async function probe(target: ModelEndpoint, timeoutMs: number): Promise<ModelCheck> {
  const { provider, baseUrl, name } = target;
  const endpoint: Endpoint = { baseUrl, apiKey: target.apiKey, provider };
  const anthropic = provider.keyVar === 'ANTHROPIC_API_KEY';
  const where = `${baseUrl}${target.defaulted ? ` (the default: ${provider.urlVar} is not set)` : ''}`;
  const listed = await attempt(() =>
    getJson(endpoint, anthropic ? 'v1/models?limit=1000' : 'models', AbortSignal.timeout(timeoutMs)),
  );
  if (listed.ok) {
    const ids = modelIds(listed.value.json);
    if (ids === null) return completionProbe(endpoint, target, where, timeoutMs);
    if (ids.includes(name))
      return { name: 'model', ok: true, detail: `${name} at ${where}: key accepted, model listed` };
    const shown = ids.slice(0, 8).join(', ') + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
    return problem(`unknown model ${name} at ${baseUrl}: the server lists ${shown || 'no models'}`, {
      fix: `pick a listed model (--model ${anthropic ? 'anthropic:' : ''}NAME or PIPER_MODEL), or point ${provider.urlVar} at the server that has ${name}`,
    });
  }
  // No models list here (404/405): a 1-token completion says whether this model answers.
  const status = 'status' in listed ? listed.status : null;
  if (status === 404 || status === 405) return completionProbe(endpoint, target, where, timeoutMs);
  return failed(listed, target, where);
}

async function completionProbe(
  endpoint: Endpoint,
  target: ModelEndpoint,
  where: string,
  timeoutMs: number,
): Promise<ModelCheck> {
  const anthropic = target.provider.keyVar === 'ANTHROPIC_API_KEY';
  const messages = [{ role: 'user', content: 'Reply with one word.' }];
  const body = { model: target.name, max_tokens: 1, messages };
  const reply = await attempt(() =>
    postJson(endpoint, anthropic ? 'v1/messages' : 'chat/completions', body, AbortSignal.timeout(timeoutMs)),
  );
  if (reply.ok)
    return { name: 'model', ok: true, detail: `${target.name} at ${where}: answered a 1-token request` };
  if ('status' in reply && reply.status === 404)
    return problem(`unknown model ${target.name} at ${target.baseUrl}: the server answered 404`, {
      fix: `check the model name and ${target.provider.urlVar}${anthropic ? '' : ' (most servers want it to end in /v1)'}`,
    });
  return failed(reply, target, where);
}

type Probed = AttemptResult<JsonReply> | { ok: false; unreachable: string };

/** One request; a transport failure (refused, DNS, timeout) becomes `unreachable` with its code. */
async function attempt(send: () => Promise<AttemptResult<JsonReply>>): Promise<Probed> {
  try {
    return await send();
  } catch (error) {
    return { ok: false, unreachable: transportCode(error) };
  }
}

function failed(result: Exclude<Probed, { ok: true }>, target: ModelEndpoint, where: string): ModelCheck {
  const { provider, baseUrl } = target;
  if ('unreachable' in result) {
    return problem(`cannot reach ${where}: ${result.unreachable}`, {
      fix: `check ${provider.urlVar} (the host name, the port, whether the server is up)`,
    });
  }
  if (!result.retryable && result.kind === 'auth') {
    return problem(`the API key was refused by ${baseUrl} (HTTP ${result.status})`, {
      fix: `check ${provider.keyVar}: the server did not accept it`,
    });
  }
  const reason = result.retryable ? result.error : result.message;
  return problem(`${baseUrl} did not answer the check: ${reason}`, {
    fix: result.retryable
      ? 'the server is busy or failing; try again later'
      : `check ${provider.urlVar} and the model name`,
  });
}

/** The ids of a models list (OpenAI's and Anthropic's are both `{data: [{id}]}`); null: not a list. */
function modelIds(json: unknown): string[] | null {
  const data = typeof json === 'object' && json !== null ? (json as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return null;
  return data.flatMap((m) => {
    const id = typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

/** ECONNREFUSED, ENOTFOUND, a timeout: the code a person can search for, with undici's wording. */
function transportCode(error: unknown): string {
  const e = error as { name?: unknown; code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer in time (timed out)';
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return code ? `${code} (${message})` : message;
}

function problem(detail: string, fix?: string | { fix?: string }): ModelCheck {
  const text = typeof fix === 'string' ? fix : fix?.fix;
  return { name: 'model', ok: false, detail, ...(text ? { fix: text } : {}) };
}
