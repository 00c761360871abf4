// jest's `--json` report, and vitest's `--reporter=json` (which writes the same shape): per file a
// `testResults` entry whose `assertionResults` each carry `ancestorTitles`, `title` and a `status`
// (`passed`, `failed`, `pending`/`skipped`/`disabled`, `todo`). A file that failed with no test
// failing (it did not load, a hook outside any test threw) is an error of its own: jest marks it
// `testExecError`, vitest only with its `message`, so the rule is theirs in common.
import { z } from 'zod';
import type { SummaryWord } from '../worse-word.js';
import { ID_JOIN, type JsReading, Tally, parsedReport, workspacePath } from './reading.js';

const assertion = z.looseObject({
  ancestorTitles: z.array(z.string()).default([]),
  title: z.string(),
  status: z.string(),
});

const file = z.looseObject({
  name: z.string(),
  status: z.string().optional(),
  assertionResults: z.array(assertion).default([]),
});

const report = z.looseObject({
  numTotalTests: z.number(),
  testResults: z.array(file),
});

const WORD: Record<string, SummaryWord> = {
  passed: 'PASSED',
  failed: 'FAILED',
  pending: 'SKIPPED',
  skipped: 'SKIPPED',
  disabled: 'SKIPPED',
  todo: 'SKIPPED',
};

/** The report's tests and counts, or undefined when the text is not such a report. */
export function readJestReport(text: string): JsReading | undefined {
  const data = parsedReport(report, text);
  if (!data) return undefined;
  const tally = new Tally();
  for (const f of data.testResults) {
    const path = workspacePath(f.name);
    let failedHere = false;
    for (const a of f.assertionResults) {
      // A status this reader does not know (a runner's newer word) is no pass.
      const word = WORD[a.status] ?? 'ERROR';
      if (word === 'FAILED' || word === 'ERROR') failedHere = true;
      tally.put([path, ...a.ancestorTitles, a.title].join(ID_JOIN), word);
    }
    if (f.status === 'failed' && !failedHere) tally.put(path, 'ERROR');
  }
  return tally.reading();
}
