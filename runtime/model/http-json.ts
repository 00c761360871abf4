// One POST of a JSON body to an OpenAI-compatible endpoint, judged as a single attempt for
// withRetries: a 2xx with a JSON body succeeds, 408/429/5xx may be retried (honouring
// Retry-After), any other status is final with a fix a person can apply, and a 2xx whose body is
// not JSON is a protocol error. Transport failures are thrown and classified by withRetries.
import { request, type Dispatcher } from 'undici';
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
}

export interface JsonReply {
  /** The body exactly as received. */
  raw: string;
  json: unknown;
}

/** `{baseUrl}/{path}` with exactly one slash between them. */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

/** Refuses a base URL that cannot work before any request is made. */
export function checkBaseUrl(baseUrl: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ModelError('config', `the model base URL ${JSON.stringify(baseUrl)} is not a URL`, {
      fix: 'set OPENAI_BASE_URL to the server root, e.g. http://127.0.0.1:8000/v1',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelError('config', `the model base URL ${baseUrl} is not http(s)`, {
      fix: 'set OPENAI_BASE_URL to an http:// or https:// URL',
    });
  }
}

export async function postJson(
  endpoint: Endpoint,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<AttemptResult<JsonReply>> {
  const response = await request(endpointUrl(endpoint.baseUrl, path), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${endpoint.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
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

  if (status >= 200 && status < 300) {
    try {
      return { ok: true, status, value: { raw, json: JSON.parse(raw) as unknown } };
    } catch {
      return protocolFailure(status, `the model server answered ${status} with a body that is not JSON`, raw);
    }
  }
  if (isRetryableStatus(status)) {
    const retryAfterMs = parseRetryAfter(response.headers);
    return {
      ok: false,
      retryable: true,
      status,
      error: `HTTP ${status}: ${excerpt(raw, 200)}`,
      retryAfterMs,
    };
  }
  return {
    ok: false,
    retryable: false,
    status,
    kind: 'http',
    message: `the model server refused the request with HTTP ${status}: ${excerpt(raw, 200)}`,
    fix: fixForStatus(status),
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
export function protocolFailure(status: number, message: string, raw: string): AttemptResult<never> {
  return {
    ok: false,
    retryable: false,
    status,
    kind: 'protocol',
    message,
    fix: 'check that OPENAI_BASE_URL points at an OpenAI-compatible API (most end in /v1)',
    bodyExcerpt: excerpt(raw),
  };
}

function fixForStatus(status: number): string {
  if (status === 401 || status === 403) return 'check OPENAI_API_KEY: the server did not accept it';
  if (status === 404) return 'check OPENAI_BASE_URL (most servers want it to end in /v1) and the model name';
  if (status === 400 || status === 422) return 'the server rejected the request body; its reason is above';
  return 'see the server reason above';
}
