// An environment build that failed: what failed and how to fix it, with every step run so far and
// what each source said, so the ledger records the failure as fully as a success.
import { RuntimeError } from '../../errors.js';
import type { EnvironmentStep } from '../../ledger/environments.js';

export class EnvBuildError extends RuntimeError {
  constructor(
    message: string,
    fix: string,
    readonly steps: EnvironmentStep[],
    readonly sources: string[],
  ) {
    super('env_build_failed', message, fix);
  }
}
