// The closed set of failures the runtime reports. Callers branch on `kind`, never on message text;
// each kind says whether retrying can help and carries the fix a person should apply.

export type RuntimeErrorKind =
  | 'engine_unreachable' // no Docker engine answers
  | 'engine_error' // the engine answered with an error
  | 'image_missing' // the sandbox image is not built
  | 'image_build_failed'
  | 'env_build_failed' // a project's environment image could not be built
  | 'bad_spec' // a run spec the runtime refuses
  | 'runtime_unavailable' // the sandbox runtime asked for (PIPER_SANDBOX_RUNTIME) is not offered by the engine
  | 'hardening_unavailable' // the engine cannot apply a hardening setting of the sandbox, and it was not accepted
  | 'ledger_error'
  | 'ledger_refused' // a ledger file piper will not open (one a repository tracks in git)
  | 'interrupted';

export class RuntimeError extends Error {
  constructor(
    readonly kind: RuntimeErrorKind,
    message: string,
    readonly fix?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RuntimeError';
  }
}

export function isRuntimeError(error: unknown, kind?: RuntimeErrorKind): error is RuntimeError {
  return error instanceof RuntimeError && (kind === undefined || error.kind === kind);
}

/** Socket-level failures that mean "nobody is listening", as opposed to an engine that said no. */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ENOENT' ||
    code === 'EACCES' ||
    code === 'ECONNRESET' ||
    code === 'EHOSTUNREACH' ||
    code === 'ETIMEDOUT' ||
    code === 'EPIPE'
  );
}
