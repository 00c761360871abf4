// The one entry to every test runner's report: the runner kind says which reader reads it. The
// words are pytest's summary words whatever the runner, so every caller grades them alike.
import { withoutColors } from '../text/terminal-colors.js';
import { readJsOutput } from './js/js-output.js';
import { parseSummary, type SummaryWord } from './pytest-summary.js';
import { parseSympyVerbose } from './sympy-verbose.js';
import { parseUnittestVerbose } from './unittest-verbose.js';

/**
 * pytest with `-rA`; unittest's verbose report (Django's runner too); sympy's `bin/test --verbose`;
 * a JavaScript runner's (jest, vitest, mocha, node:test, ava, tap, tape: js/js-output.ts), its
 * streams joined.
 */
export type RunnerKind = 'pytest' | 'unittest' | 'sympy' | 'javascript';

const READERS: Record<RunnerKind, (output: string) => Map<string, SummaryWord>> = {
  pytest: parseSummary,
  unittest: parseUnittestVerbose,
  sympy: parseSympyVerbose,
  javascript: (output) => readJsOutput(output, output).outcomes,
};

/**
 * Each test the runner's output names, with its word (a test reported twice keeps its worse one).
 * A run with colours on (pytest `--color=yes` in a project's addopts) is read without them.
 */
export function parseTestOutcomes(runner: RunnerKind, output: string): Map<string, SummaryWord> {
  return READERS[runner](withoutColors(output));
}
