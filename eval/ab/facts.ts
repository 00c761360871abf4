// What the A/B measures need of one agent run, read from the ledger rows the loop wrote — never from
// the agent's own account: usage and outcome from `runs`, decision points from the parsed actions of
// `turns`, executed model calls and the issue-time triggers from `calls`, edits from `edits`.
import type { Arm, InstanceFacts } from './metrics.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { savedTurnsUsed } from '../../policy/loop-state.js';
import { proposedToolSchema } from '../../policy/turn/select.js';
import { callsOf, turnsOf } from '../../runtime/ledger/turns.js';
import { isRecord } from '../../runtime/text/is-record.js';
import type { Task } from './tasks.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { suiteRegressionsOf } from './regression-measure.js';

interface RunRow {
  outcome: string | null;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number | null;
  config: string | null;
}

export function factsOfRun(
  ledger: Ledger,
  runId: string,
  arm: Arm,
  task: Task,
  resolved: boolean,
): InstanceFacts {
  const run = getRun(ledger, runId) as RunRow | undefined;
  if (!run) throw new Error(`run ${runId} is not in the ledger`);
  const config: unknown = run.config ? JSON.parse(run.config) : {};
  const decisions: string[] = [];
  for (const turn of turnsOf(ledger, runId)) {
    if (typeof turn.action !== 'string') continue; // a no-op turn: nothing parsed, not a decision point
    const proposal = proposedToolSchema.safeParse(JSON.parse(turn.action));
    if (proposal.success) decisions.push(proposal.data.tool);
  }
  const calls = callsOf(ledger, runId);
  return {
    arm,
    taskId: task.id,
    underspecified: task.underspecified,
    goldLabels: task.gold_labels,
    runId,
    resolved,
    outcome: run.outcome ?? 'unfinished',
    tokens: run.tokens_in + run.tokens_out,
    costUsd: run.cost_usd,
    turns: (isRecord(config) ? savedTurnsUsed(config.loop_state) : undefined) ?? 0,
    decisions,
    // Ran (or was dispatched and failed): a rejected proposal never ran, a trigger is not the model's.
    modelCalls: calls
      .filter((c) => c.origin === 'model' && c.verdict === 'valid')
      .map((c) => ({ callId: c.id, tool: c.tool })),
    // Triggers that fired on the issue, before the model's first decision (they carry no turn).
    triggeredFirst: calls
      .filter((c) => c.origin === 'trigger' && c.turn_id === null && c.status === 'completed')
      .map((c) => c.tool),
    edits: editsForRun(ledger, runId).length,
    ablation: null,
    suiteRegressions: suiteRegressionsOf(config),
  };
}
