// A suite run's output read per test: the one reader of test output (runtime/test-output/) for the
// words — pytest's summary on stdout, else unittest's verbose report (Django's runner too) on
// stderr, where unittest writes it — and pytest's failure sections (test-failures.ts) for the first
// lines of each failure. The ledger's copy of a cached base run is read the same way as a fresh one.
import type { SummaryWord } from '../../runtime/test-output/pytest-summary.js';
import { parseTestOutcomes } from '../../runtime/test-output/outcomes.js';
import { testVerdict } from '../../runtime/test-output/test-verdict.js';
import { testFailures } from '../test-failures.js';
import type { LanguageId } from '../../runtime/language/language.js';
import type { SuiteRun } from './suite-compare.js';

export function readSuiteRun(
  receipt: { stdout: string; stderr: string; exit_code: number; timed_out: boolean },
  language: LanguageId = 'python',
): SuiteRun {
  const failureLines = new Map<string, string[]>();
  for (const f of testFailures(receipt.stdout)) if (f.line) failureLines.set(f.test, [f.line]);
  const tail = `${receipt.stdout}\n${receipt.stderr}`.trimEnd().split('\n').slice(-20).join('\n');
  return {
    tests:
      language === 'javascript'
        ? parseTestOutcomes('javascript', `${receipt.stdout}\n${receipt.stderr}`)
        : testsOf(receipt.stdout, receipt.stderr),
    exitCode: receipt.exit_code,
    timedOut: receipt.timed_out,
    failureLines,
    tail,
    verdict: testVerdict(receipt, language),
  };
}

function testsOf(stdout: string, stderr: string): Map<string, SummaryWord> {
  const pytest = parseTestOutcomes('pytest', stdout);
  return pytest.size > 0 ? pytest : parseTestOutcomes('unittest', `${stderr}\n${stdout}`);
}
