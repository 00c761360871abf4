// Which tests failed, and how, read from the tail of pytest's output that run_test keeps: the node
// ids from the "short test summary info" (FAILED / ERROR lines) and, for each, the first `E` line
// of its section under FAILURES / ERRORS — the assertion as pytest explains it. The summary line's
// own message is cut to the terminal's width inside the sandbox, so the section is the better source.
// Shown to the engineer only (the event stream and the TUI); the model reads the output itself.
import type { z } from 'zod';
import { runTestResultSchema } from '../primitives/results/sandbox-results.js';
import type { testFailureSchema } from './events.js';

/** A node id (`tests/test_words.py::test_top_words`) and its first `E` line, as the event carries it. */
export type TestFailure = z.output<typeof testFailureSchema>;

/** At most this many failures are carried: a screen, not a report (the ledger keeps the output). */
const MAX_FAILURES = 10;

const SUMMARY = /^(FAILED|ERROR) (\S+)/;
const SECTION = /^_{2,} (.+?) _{2,}$/;
const EXPLAINED = /^E\s+(\S.*?)\s*$/;

export function testFailures(output: string): TestFailure[] {
  const lines = output.split('\n');
  const firstE = new Map<string, string>();
  let section: string | null = null;
  for (const line of lines) {
    const header = SECTION.exec(line);
    if (header) {
      // "ERROR at setup of test_x" names the test after its phase.
      section = header[1]!.replace(/^ERROR at \w+ of /, '');
      continue;
    }
    const explained = EXPLAINED.exec(line);
    if (section !== null && explained && !firstE.has(section)) firstE.set(section, explained[1]!);
  }
  const named = lines.flatMap((l) => {
    const m = SUMMARY.exec(l);
    return m ? [m[2]!] : [];
  });
  // Without a summary (cut from the tail, or -rN), the section names are all there is.
  const ids = named.length > 0 ? named : [...firstE.keys()];
  return ids.slice(0, MAX_FAILURES).map((test) => {
    const line = firstE.get(sectionName(test)) ?? firstE.get(test);
    return line === undefined ? { test } : { test, line };
  });
}

/** pytest titles a node's section by its name after the file: `Class.test_x[param]`. */
function sectionName(nodeId: string): string {
  return nodeId.split('::').slice(1).join('.') || nodeId;
}

/** What the failures are read from: run_test's verdict and the tail of its output. */
const testOutputSchema = runTestResultSchema.pick({ passed: true, output: true });

/** The `failures` an observation event carries: only for a test that ran and did not pass. */
export function failuresField(kind: string, result: unknown): { failures?: TestFailure[] } {
  if (kind !== 'test') return {};
  const test = testOutputSchema.safeParse(result);
  if (!test.success || test.data.passed) return {};
  const failures = testFailures(test.data.output);
  return failures.length > 0 ? { failures } : {};
}
