// A one-shot command's call (`run-test`, `execute`, `tool`) goes the way the agent's does: a session
// opened by openSession (the engine, the start-up sweeps, the ledger, and the project environment
// chosen once by ensureEnvironment), a ToolRunner with the options the session gives the agent's
// (session-tools.ts), and the call dispatched through ToolRunner.run to its tool, which writes its
// ledger row `dispatched` before it runs and ends it once. What differs is named here: the call's
// origin, the run it is recorded in (a run of its own, ended with the call), and the code index and
// lint gate, which only a call that reads or edits the code opens.
import { ToolRunner, type ExecutedCall, type ToolRunnerOptions } from '../../primitives/tool-runner.js';
import { parseToolCall, type ToolCall, type ToolName } from '../../primitives/tools/all-tools.js';
import type { CallOrigin } from '../../runtime/ledger/ledger.js';
import { createRun, endRun, type NewRun } from '../../runtime/ledger/runs.js';
import { openCommandSession, type CommandSandboxOptions, type Session } from '../session.js';
import { sessionToolOptions } from '../session-tools.js';

/** The flags every one-shot command shares: the repository, the ledger, a user image, the environment. */
export type OneShotFlags = Parameters<typeof openCommandSession>[0];

/** What a call beyond the session's needs of its runner: the code index and lint gate, retrieval, execute's flags. */
export type RunnerExtras = Pick<ToolRunnerOptions, 'index' | 'lint' | 'retrieve' | 'oneShotExecute'>;

/** How a run of its own ended: its outcome and reason, and what the command reports. */
export interface Ended<T> {
  outcome: string;
  reason: string;
  value: T;
}

/** The tool runner of run RUN in this session: the agent's, with what this call needs beside. */
export function oneShotRunner(session: Session, runId: string, extras: RunnerExtras = {}): ToolRunner {
  return new ToolRunner({ ...sessionToolOptions(session, runId), ...extras });
}

/** TOOL's args parsed against its schema, defaults applied: the call the runner takes. */
export function oneShotCall<N extends ToolName>(tool: N, args: Record<string, unknown>): ToolCall<N> {
  const parsed = parseToolCall(tool, args);
  if (!parsed.ok) throw new Error(`${tool}: ${parsed.error.message}`);
  return parsed.call;
}

/** One call through the runner, as a person's (`user`) or as the model's; a sandbox failure throws. */
export function runOneShot(
  session: Session,
  runId: string,
  call: ToolCall,
  origin: CallOrigin,
  extras: RunnerExtras = {},
): Promise<ExecutedCall> {
  return oneShotRunner(session, runId, extras).run(call, origin);
}

/**
 * The session of a one-shot sandboxed call, its one container started now (or claimed warm from an
 * earlier command) while the run is recorded and the snapshot planned.
 */
export async function openOneShotSession(
  flags: OneShotFlags,
  sandbox: CommandSandboxOptions,
): Promise<Session> {
  const session = await openCommandSession(flags, sandbox);
  session.sandbox.prestart();
  return session;
}

/**
 * WORK in a run of its own: the run's row first, then ended with WORK's outcome. When WORK throws
 * (nothing ran: a snapshot over its cap, an engine that went away) the run ends `failed` with the
 * error: it does not stay open.
 */
export async function inRunOfItsOwn<T>(
  session: Session,
  row: Omit<NewRun, 'repo' | 'owner'>,
  work: (runId: string) => Promise<Ended<T>>,
): Promise<{ runId: string; value: T }> {
  const runId = createRun(session.ledger, { ...row, repo: session.repo, owner: session.owner });
  let ended: Ended<T>;
  try {
    ended = await work(runId);
  } catch (error) {
    endRun(session.ledger, runId, 'failed', (error as Error).message);
    throw error;
  }
  endRun(session.ledger, runId, ended.outcome, ended.reason);
  return { runId, value: ended.value };
}
