// mocha's `--reporter json` report: `passes`, `failures` and `pending`, each test with its `file`
// and `fullTitle` (its describe blocks and title joined by spaces). A hook that failed is listed
// among the failures under its own title (`"before all" hook for "x"`): it is an error, not a test
// that failed, and the tests it kept from running are in no list.
import { z } from 'zod';
import type { SummaryWord } from '../worse-word.js';
import { ID_JOIN, type JsReading, Tally, parsedReport, workspacePath } from './reading.js';

const test = z.looseObject({ fullTitle: z.string(), file: z.string().optional() });

const report = z.looseObject({
  stats: z.looseObject({ tests: z.number() }),
  passes: z.array(test),
  failures: z.array(test),
  pending: z.array(test),
});

const HOOK = /"(before|after) (all|each)" hook\b/;

/** The report's tests and counts, or undefined when the text is not such a report. */
export function readMochaReport(text: string): JsReading | undefined {
  const data = parsedReport(report, text);
  if (!data) return undefined;
  const tally = new Tally();
  const put = (t: z.infer<typeof test>, word: SummaryWord) =>
    tally.put([...(t.file ? [workspacePath(t.file)] : []), t.fullTitle].join(ID_JOIN), word);
  for (const t of data.passes) put(t, 'PASSED');
  for (const t of data.pending) put(t, 'SKIPPED');
  for (const t of data.failures) put(t, HOOK.test(t.fullTitle) ? 'ERROR' : 'FAILED');
  return tally.reading();
}
