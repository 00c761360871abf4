// Where the engine is, and how an engine call's failure leaves the adapter: a connection that
// nobody answers is `engine_unreachable` (exit 5, with how to start one), anything else the
// engine said is `engine_error` with the call and the engine's own message.
import { RuntimeError, isConnectionFailure } from '../errors.js';

export function engineEndpoint(): string {
  return process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

export function engineFailure(what: string, error: unknown): RuntimeError {
  if (error instanceof RuntimeError) return error;
  if (isConnectionFailure(error)) {
    return new RuntimeError(
      'engine_unreachable',
      `no Docker engine answers at ${engineEndpoint()} (${(error as { code?: string }).code})`,
      'run `piper-agent engine up` (as root it installs and starts one), start dockerd yourself, or set DOCKER_HOST',
      { cause: error },
    );
  }
  const status = (error as { statusCode?: number }).statusCode;
  const detail = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
  return new RuntimeError(
    'engine_error',
    `${what}: ${detail}${status ? ` (HTTP ${status})` : ''}`,
    undefined,
    {
      cause: error,
    },
  );
}
