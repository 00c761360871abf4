// The CLI's exit codes, documented in `piper-agent --help` and the README. A run's outcome maps to
// its code in the policy layer (OUTCOME_EXIT_CODES); the codes here extend that map, never restate it.
import { OUTCOME_EXIT_CODES } from '../policy/outcome-codes.js';

export const EXIT = {
  ok: OUTCOME_EXIT_CODES.resolved,
  failure: OUTCOME_EXIT_CODES.error,
  usage: 2,
  /** `fix`: the model asked the operator a question. */
  needsInput: OUTCOME_EXIT_CODES.ask_user,
  /**
   * The command ran and its answer is no: `fix` did not resolve the issue, `run-test`'s tests failed,
   * `tool` rejected the call, `replay` diverged.
   */
  no: OUTCOME_EXIT_CODES.stop,
  noEngine: 5,
  interrupted: 130,
} as const;

/** Bad command-line input: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A configuration file, variable or flag value that is invalid: exit 2 like bad usage, but printed
 * as its one line (with a "did you mean" when a key is misspelt), since the usage text would not
 * help with a file.
 */
export class ConfigError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * A command that SIGINT/SIGTERM stopped: the session's interrupt handler has written the record and
 * says the last word, so the command exits with the signal's code and prints nothing more (a JSON
 * stream already ended with its `result`).
 */
export class InterruptedRun extends Error {
  constructor(
    readonly signal: string,
    readonly exitCode: number,
  ) {
    super(`${signal}: the run was interrupted`);
    this.name = 'InterruptedRun';
  }
}
