// The result of a run that SIGINT/SIGTERM stopped: the last line of a headless stream, so a reader
// never has to tell a killed run from a truncated pipe. Its numbers are the ledger's so far; it is
// never verified (the run did not finish, whatever its last test said), and its diff is what the
// run committed before the signal (undo restores it).
import type { LoopEvent } from '../../policy/events.js';

export interface InterruptedRun {
  runId: string;
  signal: string;
  exitCode: number;
  turns: number;
  record: { totals(): { tokens: number; costUsd: number | null }; diff(): string };
}

export function interruptedResult(run: InterruptedRun): Extract<LoopEvent, { type: 'result' }> {
  const totals = run.record.totals();
  return {
    type: 'result',
    run_id: run.runId,
    outcome: 'interrupted',
    reason: `${run.signal}: stopped before it finished; continue with piper-agent resume ${run.runId}`,
    verified: false,
    exit_code: run.exitCode,
    turns: run.turns,
    tokens: totals.tokens,
    cost_usd: totals.costUsd,
    diff: run.record.diff(),
  };
}
