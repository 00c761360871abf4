// One run of the project's test command on a kept snapshot, recorded in the ledger like any
// run_test (a `run_test` run of its own, its config naming the gate's key and side), and read per
// test by the policy (policy/regression/suite-read.ts). pytest is asked for its summary
// line of every test through PYTEST_ADDOPTS, so a command that reaches pytest through tox, make or
// a script says it too; `-rfEsxXp` is -rA without the captured output of passing tests.
import { languageTargetArgv, runTestTool } from '../tools/run-test/tool.js';
import { Readable } from 'node:stream';
import { SANDBOX_TOOL } from '../../runtime/ledger/sandbox-tools.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { runRecorded } from '../../runtime/recorded-run.js';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';
import type { LanguageId } from '../../runtime/language/language.js';
import type { KeptSnapshot } from './suite-snapshot.js';

/** The gate's output may be long (a summary line per test): head and tail of this much are kept. */
const SUITE_OUTPUT_CAP = 4 * 1024 * 1024;
const SUMMARY_OPTIONS = '-rfEsxXp';

export interface SuiteRunContext {
  sandbox: Sandbox;
  ledger: Ledger;
  owner: string;
  repo: string;
  head?: string;
}

export interface SuiteRunSpec {
  snapshot: KeptSnapshot;
  target: string;
  testEnv: Record<string, string>;
  timeoutS: number;
  /** What the ledger's run config says of it: the gate's cache key and which side it is. */
  label: { key: string; side: 'base' | 'final' | 'as_written'; fix_run: string };
  /** Told the call's id once its row exists (its container id follows in the row). */
  onDispatched?: (callId: string) => void;
  /** The repository's language (default Python) and a JavaScript project's runner: how the target runs. */
  language?: LanguageId;
  testRunner?: string | undefined;
}

/** What the sandbox said: the streams as captured, the exit code, whether the time limit killed it. */
export interface SuiteReceipt {
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out: boolean;
}

export async function runSuite(ctx: SuiteRunContext, spec: SuiteRunSpec): Promise<SuiteReceipt> {
  const runId = createRun(ctx.ledger, {
    kind: SANDBOX_TOOL.test,
    repo: ctx.repo,
    head: ctx.head,
    owner: ctx.owner,
    // What `ledger runs` shows in its issue column: whose suite run this is.
    issue:
      spec.label.side === 'as_written'
        ? `the repro target on the tests as written, for fix ${spec.label.fix_run}`
        : `regression gate: the project's suite on the ${spec.label.side} of fix ${spec.label.fix_run}`,
    config: { suite: spec.label },
  });
  const env = withSummary(spec.testEnv);
  try {
    const { receipt } = await runRecorded(
      ctx.ledger,
      ctx.sandbox,
      {
        runId,
        tool: SANDBOX_TOOL.test,
        args: { target: spec.target, timeout: spec.timeoutS, env },
        origin: 'user',
        owner: ctx.owner,
      },
      {
        image: ctx.sandbox.image,
        argv:
          (spec.language ?? 'python') === 'python'
            ? languageTargetArgv(verbose(spec.target), { language: 'python' })
            : languageTargetArgv(spec.target, {
                language: spec.language!,
                repoRoot: ctx.repo,
                testRunner: spec.testRunner,
              }),
        workspace: Readable.from([spec.snapshot.tar]),
        workspaceEnv: env,
        limits: {
          ...runTestTool.limits,
          ...spec.snapshot.sized,
          outputCapBytes: SUITE_OUTPUT_CAP,
          timeoutS: spec.timeoutS,
        },
      },
      { onDispatched: spec.onDispatched },
    );
    const verdict = receipt.timed_out ? 'timed_out' : receipt.exit_code === 0 ? 'passed' : 'failed';
    endRun(ctx.ledger, runId, verdict, `exit code ${receipt.exit_code}`);
    return receipt;
  } catch (error) {
    endRun(ctx.ledger, runId, 'failed', (error as Error).message);
    throw error;
  }
}

function withSummary(testEnv: Record<string, string>): Record<string, string> {
  const given = testEnv.PYTEST_ADDOPTS;
  return { ...testEnv, PYTEST_ADDOPTS: given ? `${given} ${SUMMARY_OPTIONS}` : SUMMARY_OPTIONS };
}

/** `python -m unittest` names each test only with -v: asked for when the command does not. */
export function verbose(target: string): string {
  const unittest = /^(python3?\s+-m\s+unittest)(\s|$)/.exec(target.trim());
  if (!unittest || /(^|\s)(-v|--verbose)(\s|$)/.test(target)) return target;
  return `${unittest[1]} -v${target.trim().slice(unittest[1]!.length)}`;
}
