// Where the engine is, and how an engine call's failure leaves the adapter: a connection that
// nobody answers is `engine_unreachable` (exit 5, with how to start one), anything else the
// engine said is `engine_error` with the call and the engine's own message.
import { RuntimeError, isConnectionFailure } from '../errors.js';
import { NO_INIT_BINARY } from './build-container.js';

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
  // A sandbox's init is a hardening setting (it reaps and forwards signals): never dropped, but
  // what to install is said. (Build boxes bring their own: build-container.ts.)
  const fix = NO_INIT_BINARY.test(detail)
    ? "install the engine's init binary (Podman's catatonit: `apt-get install catatonit` on Debian), then run again"
    : undefined;
  return new RuntimeError('engine_error', `${what}: ${detail}${status ? ` (HTTP ${status})` : ''}`, fix, {
    cause: error,
  });
}
