// Bounded retries with exponential backoff and jitter, shared by the chat and embeddings clients.
// Every attempt is recorded (status, error, duration, the wait that followed) so the ledger can
// show exactly what a model call cost in time and in retries. Each attempt runs under its own
// timeout; the caller's AbortSignal ends everything at once and is never retried.
import { performance } from 'node:perf_hooks';
import { ModelError, type Attempt, type ModelErrorKind } from './types.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Per attempt, from sending the request to having read the whole body. */
  timeoutMs: number;
  /** Backoff before attempt n+1 is about baseDelayMs · 2^(n-1), jittered to 50–100 %, capped. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking for a longer wait than this is not waited for: the call fails as exhausted. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  timeoutMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** What one attempt came to, as judged by the client that made it. */
export type AttemptResult<T> =
  | { ok: true; value: T; status: number }
  | {
      ok: false;
      retryable: true;
      status: number | null;
      error: string;
      retryAfterMs: number | null;
      /** Set by withRetries when its own per-attempt timeout ended the attempt. */
      timedOut?: boolean;
    }
  | {
      ok: false;
      retryable: false;
      status: number | null;
      kind: Exclude<ModelErrorKind, 'exhausted' | 'timeout' | 'aborted'>;
      message: string;
      fix: string;
      bodyExcerpt?: string;
    };

export interface RetryEffects {
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  random?: () => number;
}

/** 408 and 429 say "later"; 5xx says "not now". Everything else will answer the same way again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Milliseconds a server asked us to wait: `retry-after-ms` (OpenAI's) first, then `retry-after` as
 * seconds or an HTTP date. null when absent or unreadable.
 */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): number | null {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim();
  const ms = first(headers['retry-after-ms']);
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = first(headers['retry-after']);
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function backoffMs(policy: RetryPolicy, attemptNumber: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptNumber - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the policy's attempts run out. Resolves with
 * the value and every attempt; rejects only with ModelError (kinds http, protocol, config from the
 * attempt itself, or exhausted / timeout / aborted from here), carrying the attempts.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  attempt: (signal: AbortSignal) => Promise<AttemptResult<T>>,
  signal?: AbortSignal,
  effects: RetryEffects = {},
): Promise<{ value: T; attempts: Attempt[] }> {
  const sleep = effects.sleep ?? abortableSleep;
  const random = effects.random ?? Math.random;
  const attempts: Attempt[] = [];
  const aborted = () => new ModelError('aborted', 'the model call was cancelled', { attempts });

  for (let n = 1; ; n++) {
    if (signal?.aborted) throw aborted();
    const started = performance.now();
    const result = await runOne(policy.timeoutMs, attempt, signal);
    const ms = Math.round(performance.now() - started);
    if (result.ok) {
      attempts.push({ n, status: result.status, error: null, ms, retryInMs: null });
      return { value: result.value, attempts };
    }
    if (signal?.aborted) {
      attempts.push({ n, status: result.status, error: 'cancelled', ms, retryInMs: null });
      throw aborted();
    }
    if (!result.retryable) {
      attempts.push({ n, status: result.status, error: result.message, ms, retryInMs: null });
      const { kind, message, fix, status, bodyExcerpt } = result;
      throw new ModelError(kind, message, { fix, status: status ?? undefined, bodyExcerpt, attempts });
    }

    const timedOut = result.timedOut === true;
    const tooLong = result.retryAfterMs !== null && result.retryAfterMs > policy.maxRetryAfterMs;
    const last = n >= policy.maxAttempts || tooLong;
    const wait = last ? null : (result.retryAfterMs ?? backoffMs(policy, n, random));
    attempts.push({ n, status: result.status, error: result.error, ms, retryInMs: wait });
    if (wait === null) throw giveUp(policy, attempts, timedOut, tooLong ? result.retryAfterMs : null);
    await sleep(wait, signal).catch(() => {
      throw aborted();
    });
  }
}

/** One attempt under its own timeout; a throw becomes a retryable network failure. */
async function runOne<T>(
  timeoutMs: number,
  attempt: (signal: AbortSignal) => Promise<AttemptResult<T>>,
  outer: AbortSignal | undefined,
): Promise<AttemptResult<T>> {
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(new Error(timeoutText(timeoutMs))), timeoutMs);
  const signal = outer ? AbortSignal.any([outer, timer.signal]) : timer.signal;
  try {
    return await attempt(signal);
  } catch (error) {
    if (timer.signal.aborted && !outer?.aborted) {
      const error = timeoutText(timeoutMs);
      return { ok: false, retryable: true, status: null, error, retryAfterMs: null, timedOut: true };
    }
    return {
      ok: false,
      retryable: true,
      status: null,
      error: describeNetworkError(error),
      retryAfterMs: null,
    };
  } finally {
    clearTimeout(handle);
  }
}

function giveUp(
  policy: RetryPolicy,
  attempts: Attempt[],
  timedOut: boolean,
  refusedWaitMs: number | null,
): ModelError {
  const n = attempts.length;
  const plural = n === 1 ? 'attempt' : 'attempts';
  if (refusedWaitMs !== null) {
    return new ModelError(
      'exhausted',
      `the server asked to wait ${refusedWaitMs} ms before retrying ` +
        `(more than the ${policy.maxRetryAfterMs} ms allowed)`,
      { fix: 'wait for the rate limit to reset or use a model with more quota', attempts },
    );
  }
  if (timedOut) {
    return new ModelError('timeout', `no complete reply within ${policy.timeoutMs} ms (${n} ${plural})`, {
      fix: 'check that the model server is up and not overloaded, or raise the request timeout',
      attempts,
    });
  }
  const lastError = attempts[n - 1]?.error ?? 'unknown failure';
  return new ModelError('exhausted', `the model call failed ${n} ${plural}; last: ${lastError}`, {
    fix: 'check the model server (status page, OPENAI_BASE_URL) and try again later',
    attempts,
  });
}

function timeoutText(timeoutMs: number): string {
  return `timed out after ${timeoutMs} ms`;
}

/** A transport failure, named by its code (ECONNREFUSED, UND_ERR_SOCKET, ...) rather than prose. */
function describeNetworkError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | undefined;
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return code ? `network error ${code}: ${message}` : `network error: ${message}`;
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
