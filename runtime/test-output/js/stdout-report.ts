// A runner's JSON report printed at the end of stdout by the project's own command (`jest --json`,
// `mocha --reporter json`, as benchmark harnesses run them), read when run_test framed none. The
// document starts on the last line that opens a JSON object at the left edge (jest's is one line,
// mocha's opens with a bare `{`) and runs to the end of the output. A test could print such a
// document where the runner writes its report elsewhere, so it is one more summary beside the
// console's, and the worse of them stands (js-output.ts).
import { readJestReport } from './jest-report.js';
import { readMochaReport } from './mocha-report.js';
import type { JsReading } from './reading.js';

export function stdoutReport(stdout: string): JsReading | undefined {
  const text = stdout.trimEnd();
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.startsWith('{')) continue;
    const doc = lines.slice(i).join('\n');
    const report = readJestReport(doc) ?? readMochaReport(doc);
    // A report that names no test counts nothing: the console's summary says what ran.
    return report && report.outcomes.size > 0 ? report : undefined;
  }
  return undefined;
}
