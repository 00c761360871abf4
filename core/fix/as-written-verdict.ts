// The repro is judged as written. A run whose repro test passed but which edited test-side files
// (primitives/regression/test-side.ts: the repro's own files, conftest.py, the runner's
// configuration and plugins) is never `resolved`: its outcome is `tests_edited`, with the test-side
// diff and the repro target run once more, in the sandbox, on the final tree with every one of
// those files put back as the base had it. A run may edit tests (sometimes a test is wrong); it
// then says so, and the engineer decides. A run that left the test side alone keeps its outcome:
// its last repro run after its last edit already ran on the tests as written.
import type { RunResult, TestsEdited } from '../../policy/events.js';
import { OUTCOME_EXIT_CODES } from '../../policy/outcome-codes.js';
import { baseContents, filesOf, withContents } from '../../primitives/regression/as-written.js';
import { keepSnapshot } from '../../primitives/regression/suite-snapshot.js';
import { runSuite } from '../../primitives/regression/suite-run.js';
import { isTestSide } from '../../primitives/regression/test-side.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import { recordRunVerdict } from '../../runtime/ledger/run-verdict.js';
import { countText, testVerdict } from '../../runtime/test-output/test-verdict.js';
import type { Session } from '../session.js';

/** The as-written run's budget: run_test's own ceiling. */
const AS_WRITTEN_TIMEOUT_S = 300;

export interface AsWrittenInput {
  session: Session;
  runId: string;
  head?: string;
  /** The repro target, or the project's test command when the run has none. */
  target: string;
  testEnv: Record<string, string>;
}

export async function judgeAsWritten(input: AsWrittenInput, result: RunResult): Promise<RunResult> {
  if (result.outcome !== 'resolved') return result;
  const { session, runId, target } = input;
  const edits = editsForRun(session.ledger, runId).filter((e) => isTestSide(e.path, target));
  if (edits.length === 0) return result;
  const files = [...new Set(edits.map((e) => e.path))];
  const asWritten = await runAsWritten(input, files, edits).catch((error: Error) => ({
    passed: false,
    detail: `the tests as written could not run: ${error.message}`,
    ran: false,
  }));
  const edited: TestsEdited = {
    files,
    diff: edits.map((e) => e.diff).join(''),
    as_written: asWritten.ran ? { passed: asWritten.passed, detail: asWritten.detail } : null,
  };
  const verdictText = asWritten.ran
    ? asWritten.passed
      ? `passes (${asWritten.detail})`
      : `does not pass: ${asWritten.detail}`
    : `was not judged: ${asWritten.detail}`;
  const reason = `the repro test passed, but the run edited test-side files (${files.join(', ')}); on the tests as written the repro test ${verdictText}`;
  recordRunVerdict(session.ledger, runId, {
    outcome: 'tests_edited',
    reason,
    key: 'tests_edited',
    found: edited,
  });
  return {
    ...result,
    outcome: 'tests_edited',
    reason,
    exit_code: OUTCOME_EXIT_CODES.tests_edited,
    tests_edited: edited,
  };
}

async function runAsWritten(
  input: AsWrittenInput,
  files: string[],
  edits: Parameters<typeof baseContents>[1],
): Promise<{ passed: boolean; detail: string; ran: boolean }> {
  const { session } = input;
  const final = await keepSnapshot(session.repo);
  const base = baseContents(await filesOf(final, new Set(files)), edits);
  if ('error' in base) return { passed: false, detail: base.error, ran: false };
  const snapshot = await withContents(final, base);
  const receipt = await runSuite(
    {
      sandbox: session.sandbox,
      ledger: session.ledger,
      owner: session.owner,
      repo: session.repo,
      head: input.head,
    },
    {
      snapshot,
      target: input.target,
      testEnv: input.testEnv,
      timeoutS: AS_WRITTEN_TIMEOUT_S,
      language: session.language.id,
      testRunner: session.environment?.jsPlan?.testRunner,
      label: { key: `as-written:${input.runId}`, side: 'as_written', fix_run: input.runId },
    },
  );
  const verdict = testVerdict(receipt, session.language.id);
  return verdict.pass
    ? { passed: true, detail: countText(verdict.counts), ran: true }
    : { passed: false, detail: verdict.why, ran: true };
}
