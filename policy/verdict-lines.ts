// What every output says of the repro's verdict beyond yes or no: why an exit code of 0 was no pass
// (no test ran, all skipped, a failure named, counts unknown), and, for a run that edited its test
// side, which files and what the repro said on the tests as written. One wording for the text
// output, the TUI's final screen and the CI step summary.
import type { RunResult } from './events.js';

export function verdictLines(r: Pick<RunResult, 'verification' | 'tests_edited'>): string[] {
  const lines: string[] = [];
  if (r.verification) lines.push(`repro test: no pass — ${r.verification}`);
  const edited = r.tests_edited;
  if (edited) {
    lines.push(
      `test-side files the run edited: ${edited.files.join(', ')} (their diff is in the run's diff)`,
    );
    const written = edited.as_written;
    lines.push(
      `repro test on the tests as written: ${
        written === null
          ? 'not run'
          : written.passed
            ? `passes (${written.detail})`
            : `does not pass — ${written.detail}`
      }`,
    );
  }
  return lines;
}
