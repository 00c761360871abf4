// The trust gate's exit-code consistency check of the two sandbox tools: timed_out implies the kill's
// exit code, and the result agrees with the sandbox receipt (the ledger's executions row). run_test
// adds its own (passed is exit_code == 0) in its declaration (run-test/tool.ts).
import type { SandboxVerdict } from '../results/sandbox-results.js';

/** The exit code a container killed at its time limit reports (128 + SIGKILL). */
const KILLED_EXIT_CODE = 137;

export function exitCodeChecks(
  result: SandboxVerdict,
  receipt: SandboxVerdict | null | undefined,
  own: string[] = [],
): string[] {
  const failures = [...own];
  if (result.timed_out && result.exit_code !== KILLED_EXIT_CODE) {
    failures.push(`timed_out is true but exit_code is ${result.exit_code}, not ${KILLED_EXIT_CODE}`);
  }
  if (receipt) {
    if (receipt.exit_code !== result.exit_code) {
      failures.push(`exit_code is ${result.exit_code} but the sandbox receipt says ${receipt.exit_code}`);
    }
    if (receipt.timed_out !== result.timed_out) {
      failures.push(`timed_out is ${result.timed_out} but the sandbox receipt says ${receipt.timed_out}`);
    }
  }
  return failures.map((detail) => `exit-code consistency: ${detail}`);
}
