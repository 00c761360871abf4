// The result of a run whose set-up failed after its `init` event (the code index, the lint gate):
// the stream still ends with a `result`, outcome `error`, and the ledger's run row says so too.
// Its numbers are the ledger's so far; verified and the diff are read from it as for any result.
import type { RunResult } from '../../policy/events.js';
import { OUTCOME_EXIT_CODES } from '../../policy/outcome-codes.js';

export interface FailedRun {
  runId: string;
  turns: number;
  reproTarget: string | null;
  error: unknown;
  record: {
    end(outcome: string, reason: string): void;
    totals(): { tokens: number; costUsd: number | null };
    verified(reproTarget: string | null): boolean;
    diff(): string;
  };
}

export function failedResult(run: FailedRun): RunResult {
  const error = run.error as { message?: string; fix?: string };
  const message = error?.message ?? String(run.error);
  const reason = error?.fix ? `${message} (${error.fix})` : message;
  run.record.end('error', reason);
  const totals = run.record.totals();
  return {
    run_id: run.runId,
    outcome: 'error',
    reason,
    verified: run.record.verified(run.reproTarget),
    exit_code: OUTCOME_EXIT_CODES.error,
    turns: run.turns,
    tokens: totals.tokens,
    cost_usd: totals.costUsd,
    diff: run.record.diff(),
  };
}
