// The workspace a sandboxed call gets — run_test's and execute's alike: the repository snapshot
// (runtime/workspace/snapshot.ts), planned and sized before any container exists. A snapshot over
// the work-space cap is a call that never ran: its ledger row is written `not_executed` with the
// reason, then the error is thrown, so both tools fail the same way, with the same record.
import type { SandboxToolName } from '../runtime/ledger/sandbox-tools.js';
import type { Limits } from '../runtime/sandbox/spec.js';
import { planSnapshot, snapshotTar, type Snapshot } from '../runtime/workspace/snapshot.js';
import type { SandboxContext } from './sandbox-context.js';
import { workspaceCapMb, workspaceLimits } from './workspace-size.js';
import { CallRecord } from '../runtime/ledger/call-record.js';

/** What a call with a workspace needs beyond the sandbox: the repository and, optionally, the cap. */
export interface WorkspaceContext extends SandboxContext {
  repoRoot: string;
  /** The largest work tmpfs, MiB (default: PIPER_RUN_TEST_TMPFS_MAX_MB, else 2048). */
  workspaceCapMb?: number;
}

/**
 * The cpus, memory, processes and work tmpfs of every call with a workspace: one set, so the warm
 * workspace pool (created with these) serves run_test and execute alike. Memory and tmpfs grow
 * with a large snapshot (workspace-size.ts).
 */
export const WORKSPACE_LIMITS = { memoryMb: 1024, pids: 256, tmpfsMb: 256, cpus: 1 } as const;

export function sizedSnapshot(
  ctx: WorkspaceContext,
  call: { tool: SandboxToolName; args: unknown },
  base: Pick<Limits, 'tmpfsMb' | 'memoryMb'>,
): { snapshot: Snapshot; sized: Pick<Limits, 'tmpfsMb' | 'memoryMb'> } {
  const plan = planSnapshot(ctx.repoRoot);
  try {
    const sized = workspaceLimits(
      base,
      { bytes: plan.bytes, files: plan.entries.length },
      workspaceCapMb(ctx.workspaceCapMb),
    );
    return { snapshot: snapshotTar(plan), sized };
  } catch (error) {
    const { runId, origin, owner, turnId } = ctx;
    CallRecord.dispatch(
      ctx.ledger,
      { runId, tool: call.tool, args: call.args, origin, owner, turnId },
      ctx.dispatch,
    ).ended('not_executed', (error as Error).message);
    throw error;
  }
}
