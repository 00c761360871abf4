// The one entry to every test runner's report: the runner kind says which reader reads it. The
// words are pytest's summary words whatever the runner, so every caller grades them alike.
import { parseSummary, type SummaryWord } from './pytest-summary.js';
import { parseSympyVerbose } from './sympy-verbose.js';
import { parseUnittestVerbose } from './unittest-verbose.js';

/** pytest with `-rA`; unittest's verbose report (Django's runner too); sympy's `bin/test --verbose`. */
export type RunnerKind = 'pytest' | 'unittest' | 'sympy';

const READERS: Record<RunnerKind, (output: string) => Map<string, SummaryWord>> = {
  pytest: parseSummary,
  unittest: parseUnittestVerbose,
  sympy: parseSympyVerbose,
};

/** Each test the runner's output names, with its word (a test reported twice keeps its worse one). */
export function parseTestOutcomes(runner: RunnerKind, output: string): Map<string, SummaryWord> {
  return READERS[runner](output);
}
