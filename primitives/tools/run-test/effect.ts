// run_test(target, timeout=120): the repository snapshot goes into a fresh sandbox as a tar stream
// and the target runs there. `passed` is exit_code == 0, never read from the output; an exit code of
// 0 that piper's own reading of the output does not back (no test ran, all skipped, a failure named,
// counts unknown: runtime/test-output/test-verdict.ts) carries why in `unverified_pass`, which the
// trust gate turns into its caveat. A shell-string target runs with pipefail, so a `| tee log`
// cannot mask the runner's status. The output is
// the end of stdout+stderr (where a traceback ends), the full streams stay in the ledger. The
// project's test variables (the environment plan's testEnv, from its CI) are set in the container.
// A JavaScript project's target runs by js-target.ts and is read by its runners' readers; the
// report frame its run prints is cut from the output, said in one line of piper's instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_TOOL } from '../../../runtime/ledger/sandbox-tools.js';
import { runRecorded } from '../../../runtime/recorded-run.js';
import { skippedNote } from '../../../runtime/workspace/snapshot.js';
import type { RunTestResult } from '../../results/sandbox-results.js';
import { testCounts } from '../../../runtime/test-output/counts.js';
import { testVerdict } from '../../../runtime/test-output/test-verdict.js';
import { sizedSnapshot, WORKSPACE_LIMITS, type WorkspaceContext } from '../../workspace-snapshot.js';
import type { LanguageId } from '../../../runtime/language/language.js';
import { withoutReportFrame } from '../../../runtime/test-output/js/report-frame.js';
import { reportNote } from '../../../runtime/test-output/js/report-note.js';
import { jsTargetArgv } from './js-target.js';
import { shellArgv } from './shell-argv.js';

export { shellArgv };

export interface RunTestArgs {
  target: string;
  timeout?: number;
}

export const RUN_TEST_LIMITS = { ...WORKSPACE_LIMITS, outputCapBytes: 256 * 1024 };
const OUTPUT_LINES = 50;
const OUTPUT_CHARS = 2000;

/**
 * A target is pytest's when its first word is a pytest option, a node id, a test path, or a path that
 * exists in the repo (`tests/test_x.py::test_y`, `tests`, `test_a.py -k name`); anything else (`make check`,
 * `python3 -m unittest`, `VAR=x pytest`, `cd tests && pytest`) runs as a shell string, where the
 * environment's bin (first on PATH) holds `python`, `pytest`, `py.test` and `coverage`
 * (runtime/env/build/project/venv-launchers.ts). A pytest target with shell quoting goes through `sh -c` so the
 * quotes mean what they mean in a terminal. `python -m pytest ARGS`, `python3 -m pytest ARGS`,
 * `pytest ARGS` and `py.test ARGS` are pytest's ARGS, run by the entry point in the interpreter that
 * already imported pytest (workspace.py; a pooled container pays no start-up): the same interpreter
 * and the same `python -m pytest` the launchers run, without a second start. In a user-provided
 * image they run as that image's `python3 -m pytest`.
 */
export function targetArgv(target: string, repoRoot?: string): string[] {
  const trimmed = target.trim();
  const module = /^(?:python3? -m pytest|py\.?test)(?:\s+(.*))?$/s.exec(trimmed);
  if (module) {
    const rest = module[1] ?? '';
    if (rest === '') return ['python3', '-m', 'pytest'];
    if (!/["'`$\\;&|<>(){}*?]/.test(rest.replace(/\[[^\]\s]*\]/g, '')))
      return ['python3', '-m', 'pytest', ...rest.split(/\s+/)];
    return shellArgv(`python3 -m pytest ${rest}`);
  }
  const first = trimmed.split(/\s+/)[0] ?? '';
  const path = first.split('::')[0]!;
  const isPytest =
    first.startsWith('-') ||
    /^[\w./-]+\.py(::\S+)?$/.test(first) ||
    /::/.test(first) ||
    /^[\w.-]*\/[\w./-]*$/.test(first) ||
    (repoRoot !== undefined && path !== '' && !path.startsWith('-') && existsSync(join(repoRoot, path)));
  if (!isPytest) return shellArgv(trimmed);
  if (/["'`$\\;&|<>(){}*?]/.test(trimmed.replace(/\[[^\]\s]*\]/g, ''))) {
    return shellArgv(`python3 -m pytest ${trimmed}`);
  }
  return ['python3', '-m', 'pytest', ...trimmed.split(/\s+/)];
}

/** A target's argv in the repository's language: pytest's rules, or the JavaScript runner's. */
export function languageTargetArgv(
  target: string,
  how: { language: LanguageId; repoRoot?: string | undefined; testRunner?: string | undefined },
): string[] {
  return how.language === 'javascript'
    ? jsTargetArgv(target, how.repoRoot, how.testRunner)
    : targetArgv(target, how.repoRoot);
}

export async function runTest(
  ctx: WorkspaceContext & {
    /**
     * Variables set in the container before the target runs (the plan's testEnv: repository text,
     * names already checked by runtime/env/plan/tests/test-env.ts). Recorded with the call's args.
     */
    testEnv?: Record<string, string>;
    /** Lines leading the output: what the environment changed about the run (piper's words). */
    testNotes?: string[];
    /** The run's CPU quota in cores, when not the sandbox's default (grading, as its harness runs). */
    cpus?: number;
    /** The repository's language (default Python): how a target runs and whose output is read. */
    language?: LanguageId;
    /** A JavaScript project's runner (the plan's testRunner: jest, vitest, mocha, node-test, …). */
    testRunner?: string;
  },
  args: RunTestArgs,
): Promise<{ callId: string; result: RunTestResult }> {
  const timeout = args.timeout ?? 120;
  const language = ctx.language ?? 'python';
  const env = ctx.testEnv && Object.keys(ctx.testEnv).length ? ctx.testEnv : undefined;
  const recorded = { target: args.target, timeout, ...(env ? { env } : {}) };
  // Sized before any container exists: a snapshot over the cap is a call that never ran.
  const { snapshot, sized } = sizedSnapshot(
    ctx,
    { tool: SANDBOX_TOOL.test, args: recorded },
    RUN_TEST_LIMITS,
  );
  const { callId, receipt } = await runRecorded(
    ctx.ledger,
    ctx.sandbox,
    {
      runId: ctx.runId,
      tool: SANDBOX_TOOL.test,
      args: recorded,
      origin: ctx.origin,
      owner: ctx.owner,
      turnId: ctx.turnId,
    },
    {
      image: ctx.sandbox.image,
      argv: languageTargetArgv(args.target, { language, repoRoot: ctx.repoRoot, testRunner: ctx.testRunner }),
      workspace: snapshot.tar,
      ...(env ? { workspaceEnv: env } : {}),
      limits: { ...RUN_TEST_LIMITS, ...sized, ...(ctx.cpus ? { cpus: ctx.cpus } : {}), timeoutS: timeout },
    },
    ctx.dispatch,
  );
  return {
    callId,
    result: testResult(receipt, timeout, [...(ctx.testNotes ?? []), skippedNote(snapshot.skipped)], language),
  };
}

/**
 * What a finished run tells: its counts and its output behind the notes. The tar has been read to
 * its end by then (the command runs after the unpack), so the list of skipped entries is complete;
 * its note leads the output, where the tail cut never drops it.
 */
function testResult(
  receipt: { stdout: string; stderr: string; exit_code: number; timed_out: boolean },
  timeout: number,
  notes: string[],
  language: LanguageId,
): RunTestResult {
  const js = language === 'javascript';
  const note = [...notes, js ? reportNote(receipt.stdout, receipt.stderr) : ''].filter(Boolean).join('\n');
  // The report frame is piper's reading material, not the runner's words the model reads.
  const stdout = js ? withoutReportFrame(receipt.stdout) : receipt.stdout;
  const combined = [stdout, receipt.stderr].filter(Boolean).join(stdout.endsWith('\n') ? '' : '\n');
  const counts = testCounts(receipt.stdout, receipt.stderr, language);
  const verdict = receipt.exit_code === 0 ? testVerdict(receipt, language) : null;
  return {
    passed: receipt.exit_code === 0,
    exit_code: receipt.exit_code,
    output: withNote(
      note,
      lastOf(
        receipt.timed_out
          ? `${combined}\n[timed out after ${timeout} s; the container was killed]`
          : combined,
      ),
    ),
    timed_out: receipt.timed_out,
    ...(counts ? { counts } : {}),
    ...(verdict && !verdict.pass ? { unverified_pass: verdict.why } : {}),
  };
}

function withNote(note: string, output: string): string {
  return note ? `${note}\n${output}` : output;
}

/** The last 50 lines, then the last 2000 characters of those. */
function lastOf(text: string): string {
  const lines = text.replace(/\n$/, '').split('\n');
  const tail = lines.slice(-OUTPUT_LINES).join('\n');
  return tail.length > OUTPUT_CHARS ? tail.slice(tail.length - OUTPUT_CHARS) : tail;
}
