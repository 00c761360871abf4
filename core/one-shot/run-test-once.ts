// `piper-agent run-test`'s call: the TARGET given, else the project's test command as the chosen
// environment's plan found it (the plan the agent's run takes its repro test from), run as a
// person's run_test through the agent's tool runner, in a `run_test` run of its own.
import type { RunTestResult } from '../../primitives/results/sandbox-results.js';
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { DEFAULT_TEST_COMMAND } from '../../runtime/env/plan/tests/test-command.js';
import { gitHead, repoRoot } from '../../runtime/host/git.js';
import type { Session } from '../session.js';
import { inRunOfItsOwn, oneShotCall, openOneShotSession, runOneShot, type OneShotFlags } from './one-shot.js';
import { keepWarmOption } from './warm-option.js';

/** What run-test runs: the target, where it came from when it is the project's, the test variables' names. */
export interface TestChoice {
  target: string;
  from: string | null;
  variables: string[];
}

export interface RunTestOnce {
  runId: string;
  callId: string;
  choice: TestChoice;
  result: RunTestResult;
}

export async function runTestOnce(
  flags: OneShotFlags,
  asked: { target: string; timeout: number },
  /** Told what runs before it runs (the command says it on stderr). */
  onChoice: (choice: TestChoice) => void,
): Promise<RunTestOnce> {
  const repo = flags.repo ?? repoRoot();
  // HEAD, read by git while the engine, the ledger and the environment are set up.
  const head = gitHead(repo);
  const session = await openOneShotSession(
    { ...flags, repo },
    { workspacePoolSize: 1, workspacePoolLimits: runTestTool.limits, oneShot: true, ...keepWarmOption() },
  );
  try {
    const choice = testChoice(session, asked.target);
    onChoice(choice);
    const call = oneShotCall(runTestTool.name, { target: choice.target, timeout: asked.timeout });
    const { runId, value } = await inRunOfItsOwn(
      session,
      { kind: runTestTool.name, head: await head },
      async (id) => {
        const exec = await runOneShot(session, id, call, 'user');
        // run_test's result as its effect returned it (the runner types it unknown for the trust gate).
        const result = exec.result as RunTestResult;
        const outcome = result.passed ? 'passed' : 'failed';
        return { outcome, reason: `exit code ${result.exit_code}`, value: { callId: exec.callId, result } };
      },
    );
    return { runId, choice, ...value };
  } finally {
    await session.close();
  }
}

/**
 * The TARGET given, else the project's test command from the environment's plan, else the
 * language's default (pytest's, or `npm test`); the names of the variables every run_test of the environment sets. An image used as it
 * is has no plan: the default runs, with no variables, as the agent's run would get none.
 */
function testChoice(session: Session, given: string): TestChoice {
  const plan = session.environment?.plan ?? session.environment?.jsPlan ?? null;
  const fallback = session.language.id === 'javascript' ? 'npm test' : DEFAULT_TEST_COMMAND;
  const target = given || plan?.testCommand || fallback;
  const from = given ? null : (plan?.testCommandFrom ?? null);
  return { target, from, variables: plan ? Object.keys(plan.testEnv) : [] };
}
