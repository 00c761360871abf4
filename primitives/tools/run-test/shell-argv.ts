// How run_test runs a shell string: with pipefail, so `pytest | tee log` (or a runner's report
// copied by `| tee`) fails when the runner does.

/**
 * A shell string run with pipefail: bash where the image has it (Debian's images always do), else
 * plain sh, whose dash has no pipefail (the counts still judge the run then).
 */
export function shellArgv(command: string): string[] {
  return ['sh', '-c', PIPEFAIL_SHELL, 'sh', command];
}

const PIPEFAIL_SHELL = 'command -v bash >/dev/null 2>&1 && exec bash -o pipefail -c "$1"; exec sh -c "$1"';
