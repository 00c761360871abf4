// execute(code, timeout=10): Python (a JavaScript repository's: JavaScript or TypeScript,
// js-program.ts) in a fresh sandbox with no network, in the project's
// environment, with a copy of the repository at /work — the same snapshot, rules and cap as
// run_test's — so the program can import the project and reproduce a bug with its own functions.
// It is a copy: nothing the program writes reaches the host. Served from the warm workspace pool
// when one is running. The result is the captured streams and the engine's exit code.
import { SANDBOX_TOOL } from '../../../runtime/ledger/sandbox-tools.js';
import { runRecorded } from '../../../runtime/recorded-run.js';
import { EXECUTE_ARGV } from '../../../runtime/sandbox/pool.js';
import { DEFAULT_LIMITS, type Limits, type Receipt } from '../../../runtime/sandbox/spec.js';
import { skippedNote } from '../../../runtime/workspace/snapshot.js';
import type { ExecuteResult } from '../../results/sandbox-results.js';
import type { LanguageId } from '../../../runtime/language/language.js';
import { jsProgramArgv, jsProgramFile } from './js-program.js';
import type { SandboxContext } from '../../sandbox-context.js';
import { sizedSnapshot, WORKSPACE_LIMITS, type WorkspaceContext } from '../../workspace-snapshot.js';

export interface ExecuteArgs {
  code: string;
  timeout?: number;
}

/** run_test's cpus, memory, processes and work tmpfs (one warm pool serves both); 64 KiB of output. */
export const EXECUTE_LIMITS: Omit<Limits, 'timeoutS'> = {
  ...WORKSPACE_LIMITS,
  outputCapBytes: DEFAULT_LIMITS.outputCapBytes,
};

export async function execute(
  ctx: WorkspaceContext & { language?: LanguageId | undefined },
  args: ExecuteArgs,
  /** Limits of a person's `piper-agent execute` (its flags); the tool's are EXECUTE_LIMITS. */
  given?: Partial<Limits>,
): Promise<{ callId: string; result: ExecuteResult; receipt: Receipt }> {
  const timeout = given?.timeoutS ?? args.timeout ?? 10;
  const recorded = given ? { code: args.code, limits: given } : { code: args.code, timeout };
  const base = { ...EXECUTE_LIMITS, ...stripUndefined(given ?? {}) };
  const { snapshot, sized } = sizedSnapshot(ctx, { tool: SANDBOX_TOOL.compute, args: recorded }, base);
  const { callId, receipt } = await runRecorded(
    ctx.ledger,
    ctx.sandbox,
    {
      runId: ctx.runId,
      tool: SANDBOX_TOOL.compute,
      args: recorded,
      origin: ctx.origin,
      owner: ctx.owner,
      turnId: ctx.turnId,
    },
    {
      image: ctx.sandbox.image,
      ...(ctx.language === 'javascript'
        ? { argv: jsProgramArgv(jsProgramFile(args.code)), programFile: jsProgramFile(args.code) }
        : { argv: EXECUTE_ARGV }),
      program: args.code,
      workspace: snapshot.tar,
      limits: { ...base, ...sized, timeoutS: timeout },
    },
    ctx.dispatch,
  );
  // What the snapshot left out leads stderr, as it leads run_test's output; the receipt keeps the
  // streams as they were.
  const note = skippedNote(snapshot.skipped);
  return {
    callId,
    receipt,
    result: streamsOf(receipt, note ? `${note}\n${receipt.stderr}` : receipt.stderr),
  };
}

/**
 * A person's one-shot `piper-agent execute --no-workspace`: the program alone on stdin, with no copy
 * of the repository (a directory that is no project, or one too big to copy), under its flags'
 * limits (absent ones are the sandbox's defaults).
 */
export function executeAlone(
  ctx: SandboxContext,
  code: string,
  limits: Partial<Limits>,
): Promise<{ callId: string; result: ExecuteResult; receipt: Receipt }> {
  return runRecorded(
    ctx.ledger,
    ctx.sandbox,
    {
      runId: ctx.runId,
      tool: SANDBOX_TOOL.compute,
      args: { code, limits },
      origin: ctx.origin,
      owner: ctx.owner,
      turnId: ctx.turnId,
    },
    { image: ctx.sandbox.image, argv: EXECUTE_ARGV, stdin: code, limits },
    ctx.dispatch,
  ).then(({ callId, receipt }) => ({ callId, receipt, result: streamsOf(receipt, receipt.stderr) }));
}

function streamsOf(receipt: Receipt, stderr: string): ExecuteResult {
  return { stdout: receipt.stdout, stderr, exit_code: receipt.exit_code, timed_out: receipt.timed_out };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
