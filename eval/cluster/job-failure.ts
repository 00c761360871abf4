// Why a Swarm job ended without a result, in words a user can act on (docs/scale.md): the exit
// reason read from its task (no such image, killed, an engine error, its node lost, the time limit)
// and the last lines the job printed. A reason of the node (the image missing there, the engine
// refusing, the job killed or its node gone) is worth one more try on another node; the instance's
// own (`ab` exited non-zero, printed no valid block, ran out of time) would fail the same anywhere.
import type { SwarmTask } from '../../runtime/engine/swarm-client.js';
import type { FailedJobReport } from '../ab/report-shape.js';

/** How many of the job's last output lines a failure keeps. */
export const TAIL_LINES = 15;

type ExitReason = 'no such image' | 'killed' | 'engine error' | 'node lost' | 'timeout' | 'instance';

export interface JobFailure {
  reason: ExitReason;
  /** A reason of the node: another node may well run the job. */
  nodeFault: boolean;
  /** The node the task was on ('' when Swarm never placed it). */
  node: string;
  /** The task's state, exit code and message as Swarm gives them. */
  detail: string;
  /** The job's last output lines, stderr's (its progress and errors), else stdout's. */
  tail: string[];
  /** The first try's failure, when this was the retry on another node. */
  retriedAfter?: string;
}

/** Thrown by one job's attempt: its failure, read. */
export class JobFailedError extends Error {
  constructor(readonly failure: JobFailure) {
    super(describeFailure(failure));
  }
}

export function describeFailure(f: JobFailure): string {
  const where = f.node ? ` on ${f.node}` : '';
  const last = f.tail.at(-1);
  return `${f.reason}${where}: ${f.detail}${last ? ` — last line: ${last}` : ''}`;
}

const SIGNAL_EXITS = new Set([137, 143]);

/** The failure of `task` (null: it never ended in time), from what it printed on each stream. */
export function readFailure(
  task: SwarmTask | null,
  logs: { stdout: string; stderr: string },
  why: string,
): JobFailure {
  const tail = tailOf(logs.stderr).length > 0 ? tailOf(logs.stderr) : tailOf(logs.stdout);
  if (!task) return { reason: 'timeout', nodeFault: false, node: '', detail: why, tail };
  const detail = `${describeTask(task)}; ${why}`;
  const failure = (reason: ExitReason, nodeFault: boolean): JobFailure => ({
    reason,
    nodeFault,
    node: task.nodeId,
    detail,
    tail,
  });
  if (/no such image|image .* not found|pull access denied|manifest unknown/i.test(task.message))
    return failure('no such image', true);
  if (task.state === 'orphaned' || task.state === 'shutdown') return failure('node lost', true);
  if (task.exitCode !== null && SIGNAL_EXITS.has(task.exitCode)) return failure('killed', true);
  // The engine failed to create or start the container: the job's own code never ran.
  if (task.state === 'rejected' || (task.exitCode === null && task.state === 'failed'))
    return failure('engine error', true);
  return failure('instance', false);
}

const describeTask = (t: SwarmTask): string =>
  `${t.state}${t.exitCode === null ? '' : ` (exit ${t.exitCode})`}${t.message ? `: ${t.message}` : ''}`;

/** The last non-empty lines of `text`, minus a result block's base64 (never a reason). */
function tailOf(text: string): string[] {
  const lines = text
    .split(/\r\n|\r|\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.length > 0 && !/^[A-Za-z0-9+/=]{76}$/.test(l));
  return lines.slice(-TAIL_LINES);
}

/** The report's entry for a job that failed for good. */
export function failedJobReport(task: string, arm: string, f: JobFailure): FailedJobReport {
  return {
    task,
    arm,
    reason: f.reason,
    node: f.node,
    detail: f.detail,
    tail: f.tail,
    retried_after: f.retriedAfter ?? null,
  };
}
