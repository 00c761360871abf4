// What a session gives the tool runner of one of its runs: the repository, the sandbox (its image
// the environment chosen when the session opened), the ledger and owner, and the environment's run
// variables and notes for every run_test, and the repository's language (how a test target runs and
// whose output is read). The agent's runner (fix/run-agent.ts) and a one-shot
// command's (one-shot/) take them from here, so a call runs the same way from either.
import type { ToolRunnerOptions } from '../primitives/tool-runner.js';
import type { Session } from './session.js';

export function sessionToolOptions(
  session: Session,
  runId: string,
): Pick<
  ToolRunnerOptions,
  'repoRoot' | 'sandbox' | 'ledger' | 'runId' | 'owner' | 'testEnv' | 'testNotes' | 'language' | 'testRunner'
> {
  const environment = session.environment;
  const testRunner = environment?.jsPlan?.testRunner;
  return {
    repoRoot: session.repo,
    sandbox: session.sandbox,
    ledger: session.ledger,
    runId,
    owner: session.owner,
    testEnv: environment?.run.env ?? environment?.plan?.testEnv ?? environment?.jsPlan?.testEnv,
    testNotes: environment?.run.runNotes,
    language: session.language.id,
    ...(testRunner ? { testRunner } : {}),
  };
}
