// run_test(target, timeout=120): the repository snapshot goes into a fresh sandbox as a tar stream
// and the target runs there. `passed` is exit_code == 0, never read from the output; the output is
// the end of stdout+stderr (where a traceback ends), the full streams stay in the ledger.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runRecorded } from '../runtime/recorded-run.js';
import { planSnapshot, skippedNote, snapshotTar } from '../runtime/workspace/snapshot.js';
import type { PytestCounts, RunTestResult } from './results/sandbox-results.js';
import type { SandboxContext } from './sandbox-context.js';
import { workspaceCapMb, workspaceLimits } from './workspace-size.js';

export interface RunTestArgs {
  target: string;
  timeout?: number;
}

export const RUN_TEST_LIMITS = {
  memoryMb: 1024,
  pids: 256,
  tmpfsMb: 256,
  outputCapBytes: 256 * 1024,
  cpus: 1,
};
const OUTPUT_LINES = 50;
const OUTPUT_CHARS = 2000;

/**
 * A target is pytest's when its first word is a pytest option, a node id, a test path, or a path that
 * exists in the repo (`tests/test_x.py::test_y`, `tests`, `test_a.py -k name`); anything else (`make check`,
 * `python3 -m unittest`) runs as a shell string. A pytest target with shell quoting goes through
 * `sh -c` so the quotes mean what they mean in a terminal.
 */
export function targetArgv(target: string, repoRoot?: string): string[] {
  const trimmed = target.trim();
  const first = trimmed.split(/\s+/)[0] ?? '';
  const path = first.split('::')[0]!;
  const isPytest =
    first.startsWith('-') ||
    /^[\w./-]+\.py(::\S+)?$/.test(first) ||
    /::/.test(first) ||
    /^[\w.-]*\/[\w./-]*$/.test(first) ||
    (repoRoot !== undefined && path !== '' && !path.startsWith('-') && existsSync(join(repoRoot, path)));
  if (!isPytest) return ['sh', '-c', trimmed];
  if (/["'`$\\;&|<>(){}*?]/.test(trimmed.replace(/\[[^\]\s]*\]/g, ''))) {
    return ['sh', '-c', `python3 -m pytest ${trimmed}`];
  }
  return ['python3', '-m', 'pytest', ...trimmed.split(/\s+/)];
}

export async function runTest(
  ctx: SandboxContext & {
    repoRoot: string;
    /** The largest work tmpfs, MiB (default: PIPER_RUN_TEST_TMPFS_MAX_MB, else 2048). */
    workspaceCapMb?: number;
  },
  args: RunTestArgs,
): Promise<{ callId: string; result: RunTestResult }> {
  const timeout = args.timeout ?? 120;
  // Sized before any container exists: a snapshot over the cap is a call that never ran.
  const plan = planSnapshot(ctx.repoRoot);
  let sized: ReturnType<typeof workspaceLimits>;
  try {
    sized = workspaceLimits(
      RUN_TEST_LIMITS,
      { bytes: plan.bytes, files: plan.entries.length },
      workspaceCapMb(ctx.workspaceCapMb),
    );
  } catch (error) {
    const callId = ctx.ledger.dispatchCall({
      id: ctx.dispatch?.callId,
      runId: ctx.runId,
      tool: 'run_test',
      args: { target: args.target, timeout },
      origin: ctx.origin,
      owner: ctx.owner,
      turnId: ctx.turnId,
    });
    ctx.dispatch?.onDispatched?.(callId);
    ctx.ledger.endCall(callId, 'not_executed', (error as Error).message);
    throw error;
  }
  const snapshot = snapshotTar(plan);
  const { callId, receipt } = await runRecorded(
    ctx.ledger,
    ctx.sandbox,
    {
      runId: ctx.runId,
      tool: 'run_test',
      args: { target: args.target, timeout },
      origin: ctx.origin,
      owner: ctx.owner,
      turnId: ctx.turnId,
    },
    {
      image: ctx.sandbox.image,
      argv: targetArgv(args.target, ctx.repoRoot),
      workspace: snapshot.tar,
      limits: { ...RUN_TEST_LIMITS, ...sized, timeoutS: timeout },
    },
    ctx.dispatch,
  );
  // The tar has been read to its end by now (the command runs after the unpack), so the list of
  // skipped entries is complete; its note leads the output, where the tail cut never drops it.
  const note = skippedNote(snapshot.skipped);
  const combined = [receipt.stdout, receipt.stderr]
    .filter(Boolean)
    .join(receipt.stdout.endsWith('\n') ? '' : '\n');
  const counts = pytestCounts(receipt.stdout);
  const result: RunTestResult = {
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
  };
  return { callId, result };
}

function withNote(note: string, output: string): string {
  return note ? `${note}\n${output}` : output;
}

/** The last 50 lines, then the last 2000 characters of those. */
export function lastOf(text: string): string {
  const lines = text.replace(/\n$/, '').split('\n');
  const tail = lines.slice(-OUTPUT_LINES).join('\n');
  return tail.length > OUTPUT_CHARS ? tail.slice(tail.length - OUTPUT_CHARS) : tail;
}

/** pytest's closing summary, e.g. `=== 1 failed, 2 passed, 1 error in 0.12s ===` or `-q`'s bare form. */
export function pytestCounts(stdout: string): PytestCounts | undefined {
  const lines = stdout.trimEnd().split('\n').reverse();
  const summary = lines.find((l) =>
    /\b\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed)\b.* in [\d.]+s/.test(l),
  );
  if (!summary) return undefined;
  const count = (word: RegExp) => Number(new RegExp(`(\\d+) ${word.source}`).exec(summary)?.[1] ?? 0);
  return { passed: count(/passed/), failed: count(/failed/), errors: count(/errors?\b/) };
}
