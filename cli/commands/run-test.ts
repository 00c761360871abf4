// `piper-agent run-test TARGET`: the repository's tests in a fresh sandbox, recorded in the ledger.
import { parseArgs } from 'node:util';
import { RUN_TEST_LIMITS, runTest } from '../../primitives/tools/run-test/effect.js';
import type { RunTestResult } from '../../primitives/results/sandbox-results.js';
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { DEFAULT_TEST_COMMAND } from '../../runtime/env/plan/tests/test-command.js';
import type { EnvPlan } from '../../runtime/env/plan/types.js';
import { gitHead, repoRoot } from '../../runtime/host/git.js';
import { inert } from '../../runtime/text/inert.js';
import { EXIT } from '../../core/exit-codes.js';
import { numberOption } from '../../core/options.js';
import { openCommandSession, type Session } from '../../core/session.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS } from '../../core/env-option.js';
import { WARM_HELP, keepWarmOption } from '../warm-option.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';

export const RUN_TEST_HELP = `Usage: piper-agent run-test [TARGET] [--repo DIR] [--timeout S] [--json] [--ledger PATH]

Runs TARGET against a snapshot of the repository (tracked and untracked-but-not-ignored files, no
.git) in a fresh sandbox, and records it in the ledger. TARGET is one or more pytest node ids or
paths (tests/test_x.py::test_y, tests/) with pytest options, or a shell string (make check).
Without TARGET it runs the project's own test command, found as its CI runs it: the test key of
.piper/sandbox.toml, the CI workflow's test step, tox, nox, a Makefile test target, pytest's
configuration, a unittest-only suite, else python -m pytest (\`piper-agent env plan\` shows which
and why). The variables the project's test step sets (its env:) are set for every run.
Nothing the tests write reaches your files.

  --repo DIR     the repository (default: the git root of the current directory)
  --timeout S    seconds before the container is killed (1..300, default 120)
  --json         print {passed, exit_code, output, timed_out, counts} with run and call ids, the
                 target run, and where it came from when it was the project's test command
  --image NAME   run in this image as it is (also PIPER_SANDBOX_IMAGE); no environment is built
${ENV_FLAG_HELP}

The project environment (its dependencies in a venv, the project installed editable) is built
before the first run and reused while its inputs are unchanged; see \`piper-agent env --help\`.
${WARM_HELP}

Exit status: 0 when the tests passed, 4 when they ran and failed or timed out, 2 bad usage or an
environment that cannot be built,
5 no Docker engine, 1 other failures.`;

export async function runTestCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean', default: false },
      ledger: { type: 'string' },
      image: { type: 'string' },
      ...ENV_PARSE_OPTIONS,
    },
    allowPositionals: true,
  });
  const given = positionals.join(' ').trim();
  const timeout = numberOption('--timeout', values.timeout, { min: 1, max: 300, integer: true }) ?? 120;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // One container, started while the run is recorded and the snapshot planned (or claimed warm
  // from an earlier command): its interpreter has pytest imported by the time the snapshot
  // arrives (a larger snapshot's limits run cold).
  const { session, head } = await openRunTestSession(values);
  try {
    const { target, from, testEnv, testNotes } = whatToRun(
      session,
      given,
      values.json ? () => undefined : log,
    );
    const runId = createRun(session.ledger, {
      kind: runTestTool.name,
      repo: session.repo,
      head: await head,
      owner: session.owner,
    });
    if (!values.json) log(`running ${inert(target)} in the sandbox (timeout ${timeout} s) ...`);
    const { callId, result } = await runTestEndingRunOnThrow(
      session,
      runId,
      { testEnv, testNotes },
      { target, timeout },
    );
    endRun(session.ledger, runId, result.passed ? 'passed' : 'failed', `exit code ${result.exit_code}`);
    if (values.json) {
      const source = from ? { from } : {};
      process.stdout.write(
        `${JSON.stringify({ run_id: runId, call_id: callId, target, ...source, ...result })}\n`,
      );
    } else printResult(result, `run ${runId} · call ${callId}`, log);
    return result.passed ? EXIT.ok : EXIT.no;
  } finally {
    await session.close();
  }
}

/**
 * The command's session, its one container prestarted (or claimed warm), and HEAD, which git reads
 * while the engine, the ledger and the environment are set up.
 */
async function openRunTestSession(
  values: Parameters<typeof openCommandSession>[0],
): Promise<{ session: Session; head: Promise<string | undefined> }> {
  const repo = values.repo ?? repoRoot();
  const head = gitHead(repo);
  const session = await openCommandSession(
    { ...values, repo },
    { workspacePoolSize: 1, workspacePoolLimits: RUN_TEST_LIMITS, oneShot: true, ...keepWarmOption() },
  );
  session.sandbox.prestart();
  return { session, head };
}

/** The test run in the sandbox, recorded under RUN ID. */
async function runTestEndingRunOnThrow(
  session: Awaited<ReturnType<typeof openCommandSession>>,
  runId: string,
  { testEnv, testNotes }: Pick<ReturnType<typeof whatToRun>, 'testEnv' | 'testNotes'>,
  { target, timeout }: { target: string; timeout: number },
): Promise<Awaited<ReturnType<typeof runTest>>> {
  try {
    return await runTest(
      {
        sandbox: session.sandbox,
        ledger: session.ledger,
        runId,
        owner: session.owner,
        origin: 'user',
        repoRoot: session.repo,
        testEnv,
        testNotes,
      },
      { target, timeout },
    );
  } catch (error) {
    // Nothing ran (a snapshot over its cap, an engine that went away): the run ends, it does not stay open.
    endRun(session.ledger, runId, 'failed', (error as Error).message);
    throw error;
  }
}

/**
 * The TARGET given, else the project's test command (the environment's plan; a user image has none,
 * so the repository is planned here), with the project's test variables either way.
 */
function whatToRun(
  session: Session,
  given: string,
  log: (line: string) => void,
): { target: string; from: string | null; testEnv: Record<string, string>; testNotes: string[] } {
  const plan: EnvPlan = session.environment?.plan ?? planEnvironment(session.repo);
  const target = given || plan.testCommand || DEFAULT_TEST_COMMAND;
  const from = given ? null : plan.testCommandFrom;
  if (from) log(inert(`the project's test command: ${target} (${from})`));
  const names = Object.keys(plan.testEnv);
  if (names.length) log(inert(`test variables: ${names.join(', ')}`));
  // The environment's run variables: the project's, plus pytest's plugin rule (pytest-run-env.ts).
  const run = session.environment?.run;
  return { target, from, testEnv: run?.env ?? plan.testEnv, testNotes: run?.runNotes ?? [] };
}

function printResult(result: RunTestResult, ids: string, log: (line: string) => void): void {
  // The tests' output is the repository's words: inert before a terminal sees it (--json is exact).
  process.stdout.write(`${inert(result.output)}\n`);
  const c = result.counts;
  const counts = c
    ? ` · ${c.passed} passed, ${c.failed} failed, ${c.errors} errors, ${c.skipped} skipped`
    : '';
  const verdict = result.timed_out ? 'TIMED OUT' : result.passed ? 'PASSED' : 'FAILED';
  log(`── ${verdict} · exit ${result.exit_code}${counts} · ${ids}`);
}
