// One request to a model provider's JSON API, judged as a single attempt for withRetries: a 2xx
// with a JSON body succeeds, 408/429/5xx (Anthropic's 529 "overloaded" too) may be retried
// (honouring Retry-After), 401/403 is a refused key (kind `auth`, a configuration error), any
// other status is final with a fix a person can apply, and a 2xx whose body is not JSON is a
// protocol error. Transport failures are thrown and classified by withRetries.
import type { Dispatcher } from 'undici';
import { OPENAI, type Provider } from './provider.js';
import { isRetryableStatus, parseRetryAfter, type AttemptResult } from './retry.js';
import { ModelError, excerpt } from './types.js';

/**
 * The most of a response body read into memory. A completion of 256 tokens is a few kilobytes; the
 * policy refuses a reply over 1 MiB as a no-op turn, and a body past this is not read at all.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface Endpoint {
  baseUrl: string;
  apiKey: string;
  dispatcher?: Dispatcher;
  /** How the key travels and which variables fixes name; default OpenAI's. */
  provider?: Provider;
}

export interface JsonReply {
  /** The body exactly as received. */
  raw: string;
  json: unknown;
}

/** `{baseUrl}/{path}` with exactly one slash between them. */
function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

/** Refuses a base URL that cannot work before any request is made. */
export function checkBaseUrl(baseUrl: string, provider: Provider = OPENAI): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ModelError('config', `the model base URL ${JSON.stringify(baseUrl)} is not a URL`, {
      fix: `set ${provider.urlVar} to the server root, e.g. ${provider.defaultBaseUrl}`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelError('config', `the model base URL ${baseUrl} is not http(s)`, {
      fix: `set ${provider.urlVar} to an http:// or https:// URL`,
    });
  }
}

export function postJson(
  endpoint: Endpoint,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<AttemptResult<JsonReply>> {
  return requestJson(endpoint, 'POST', path, body, signal);
}

/** A GET (the models list `doctor` reads), judged like a POST. */
export function getJson(
  endpoint: Endpoint,
  path: string,
  signal: AbortSignal,
): Promise<AttemptResult<JsonReply>> {
  return requestJson(endpoint, 'GET', path, undefined, signal);
}

async function requestJson(
  endpoint: Endpoint,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<AttemptResult<JsonReply>> {
  const provider = endpoint.provider ?? OPENAI;
  // undici is loaded on the first request, not at start-up: a run's first event does not wait
  // for it, and a scripted model never loads it.
  const { request } = await import('undici');
  const response = await request(endpointUrl(endpoint.baseUrl, path), {
    method,
    headers: {
      ...provider.headers(endpoint.apiKey),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      accept: 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal,
    ...(endpoint.dispatcher ? { dispatcher: endpoint.dispatcher } : {}),
  });
  // Read the whole body even for errors: it frees the connection and carries the server's reason.
  const status = response.statusCode;
  const raw = await boundedText(response.body);
  if (raw === null) {
    return protocolFailure(
      status,
      `the model server's response is over ${MAX_BODY_BYTES >> 20} MiB; it was not read`,
      '',
    );
  }

  return judgeReply(endpoint, provider, status, raw, response.headers);
}

/** A whole reply judged by its status: JSON on 2xx, retryable, a refused key, or another refusal. */
function judgeReply(
  endpoint: Endpoint,
  provider: Provider,
  status: number,
  raw: string,
  headers: Dispatcher.ResponseData['headers'],
): AttemptResult<JsonReply> {
  if (status >= 200 && status < 300) {
    try {
      return { ok: true, status, value: { raw, json: JSON.parse(raw) as unknown } };
    } catch {
      const message = `the model server answered ${status} with a body that is not JSON`;
      return protocolFailure(status, message, raw, provider);
    }
  }
  if (isRetryableStatus(status)) {
    const retryAfterMs = parseRetryAfter(headers);
    return {
      ok: false,
      retryable: true,
      status,
      error: `HTTP ${status}: ${excerpt(raw, 200)}`,
      retryAfterMs,
    };
  }
  if (status === 401 || status === 403) {
    // Retrying will not help and the run cannot work: the operator's to fix, like a missing key.
    return {
      ok: false,
      retryable: false,
      status,
      kind: 'auth',
      message: `the API key was refused by ${endpoint.baseUrl} (HTTP ${status}: ${excerpt(raw, 200)})`,
      fix: `check ${provider.keyVar}: the server did not accept it`,
      bodyExcerpt: excerpt(raw),
    };
  }
  return {
    ok: false,
    retryable: false,
    status,
    kind: 'http',
    message: `the model server refused the request with HTTP ${status}: ${excerpt(raw, 200)}`,
    fix: fixForStatus(status, provider),
    bodyExcerpt: excerpt(raw),
  };
}

/** The body as text, or null once it passes MAX_BODY_BYTES (the rest is not read). */
async function boundedText(body: Dispatcher.ResponseData['body']): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A 2xx body the client cannot use: final, since asking again gets the same shape. */
export function protocolFailure(
  status: number,
  message: string,
  raw: string,
  provider: Provider = OPENAI,
): AttemptResult<never> {
  return {
    ok: false,
    retryable: false,
    status,
    kind: 'protocol',
    message,
    fix:
      provider === OPENAI
        ? 'check that OPENAI_BASE_URL points at an OpenAI-compatible API (most end in /v1)'
        : `check that ${provider.urlVar} points at the ${provider.name} API (${provider.defaultBaseUrl})`,
    bodyExcerpt: excerpt(raw),
  };
}

function fixForStatus(status: number, provider: Provider): string {
  if (status === 404)
    return provider === OPENAI
      ? 'check OPENAI_BASE_URL (most servers want it to end in /v1) and the model name'
      : `check ${provider.urlVar} (no /v1 at its end) and the model name`;
  if (status === 400 || status === 422) return 'the server rejected the request body; its reason is above';
  return 'see the server reason above';
}
