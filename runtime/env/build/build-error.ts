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

/**
 * The index answered the probe before the build (choose/index-probe.ts) but pip found it
 * unreachable during the build: an index build made now would hold Debian's packages under the
 * index's key. The chooser builds the fallback instead (choose/ensure.ts).
 */
export class IndexUnreachableError extends EnvBuildError {
  constructor(
    readonly said: string,
    steps: EnvironmentStep[],
    sources: string[],
  ) {
    super(
      `the index stopped answering during the build: ${said}`,
      "the environment is built from Debian's packages as a fallback, and again from the index once it answers",
      steps,
      sources,
    );
  }
}
