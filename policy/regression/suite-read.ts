// A suite run's output read per test: the one reader of test output (runtime/test-output/) for the
// words, pytest's failure sections (test-failures.ts) for the first lines of each failure. The
// ledger's copy of a cached base run is read the same way as a fresh one.
import { parseSummary } from '../../runtime/test-output/pytest-summary.js';
import { testFailures } from '../test-failures.js';
import type { SuiteRun } from './suite-compare.js';

export function readSuiteRun(receipt: {
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out: boolean;
}): SuiteRun {
  const failureLines = new Map<string, string[]>();
  for (const f of testFailures(receipt.stdout)) if (f.line) failureLines.set(f.test, [f.line]);
  const tail = `${receipt.stdout}\n${receipt.stderr}`.trimEnd().split('\n').slice(-20).join('\n');
  return {
    tests: parseSummary(receipt.stdout),
    exitCode: receipt.exit_code,
    timedOut: receipt.timed_out,
    failureLines,
    tail,
  };
}
