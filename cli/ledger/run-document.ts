// One run as a document: the run row, its turns in order with the calls (and their executions) and
// observations each turn holds, and its edits. `ledger show` renders it, `ledger export` prints it,
// `replay` compares two of them. Rows without a turn (the triggers on the issue text before turn
// one, the operator's answer recorded by `resume`) belong where they happened: after the row
// before them in the same table, or in the group before the first turn.
import { z } from 'zod';
import type { CallRow } from '../../runtime/ledger/call-row.js';
import type { ExecutionRow } from '../../runtime/ledger/execution-row.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { ObservationRow } from '../../runtime/ledger/observation-row.js';
import { editsForRun, type EditRow } from '../../runtime/ledger/edits.js';
import { callsOf, observationsOf, turnsOf } from '../../runtime/ledger/turns.js';
import type { FoundRun } from './find-run.js';
import { getExecution } from '../../runtime/ledger/calls.js';

/** An executions row as the document shows it: its flags as booleans, its limits parsed. */
type ExecutionView = Omit<
  ExecutionRow,
  'warm' | 'limits' | 'timed_out' | 'oom_killed' | 'stdout_truncated' | 'stderr_truncated'
> & {
  warm: boolean;
  limits: unknown;
  timed_out: boolean;
  oom_killed: boolean;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
};

/** A calls row as the document shows it: its args parsed, its execution (if it ran in a sandbox) beside it. */
export type CallView = Pick<
  CallRow,
  'id' | 'origin' | 'tool' | 'verdict' | 'reason' | 'status' | 'status_reason' | 'container_id' | 'created_at'
> & { args: unknown; execution: ExecutionView | null };

/** An observations row as the document shows it: its result parsed from the stored JSON. */
export type ObservationView = Omit<ObservationRow, 'run_id' | 'turn_id' | 'result'> & { result: unknown };

export interface TurnView {
  /** The turn row's index in the run; null for the group before the first turn. */
  idx: number | null;
  toolset: string[];
  prompt_digest: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  raw_output: string | null;
  /** The parsed action; null for a no-op turn (or the group before the first turn). */
  action: unknown;
  created_at: string | null;
  calls: CallView[];
  observations: ObservationView[];
}

export interface RunDocument {
  format: 'piper-agent.run/1';
  ledger: string;
  run: FoundRun;
  turns: TurnView[];
  edits: EditRow[];
}

export function runDocument(ledger: Ledger, run: FoundRun): RunDocument {
  const start: TurnView = {
    idx: null,
    toolset: [],
    prompt_digest: null,
    prompt_tokens: null,
    completion_tokens: null,
    raw_output: null,
    action: null,
    created_at: null,
    calls: [],
    observations: [],
  };
  const byRowId = new Map<number, TurnView>();
  const turns: TurnView[] = [start];
  for (const t of turnsOf(ledger, run.id)) {
    const view: TurnView = {
      idx: t.idx,
      toolset: toolsetOf(t.toolset),
      prompt_digest: t.prompt_digest,
      prompt_tokens: t.prompt_tokens,
      completion_tokens: t.completion_tokens,
      raw_output: t.raw_output,
      action: json(t.action, null),
      created_at: t.created_at,
      calls: [],
      observations: [],
    };
    byRowId.set(t.id, view);
    turns.push(view);
  }
  let group = start;
  for (const c of callsOf(ledger, run.id)) {
    group = (c.turn_id === null ? undefined : byRowId.get(c.turn_id)) ?? group;
    group.calls.push(callView(ledger, c));
  }
  group = start;
  for (const o of observationsOf(ledger, run.id)) {
    group = (o.turn_id === null ? undefined : byRowId.get(o.turn_id)) ?? group;
    group.observations.push({
      id: o.id,
      call_id: o.call_id,
      kind: o.kind,
      target: o.target,
      result: json(o.result, o.result),
      trust: o.trust,
      caveat: o.caveat,
      created_at: o.created_at,
    });
  }
  return {
    format: 'piper-agent.run/1',
    ledger: ledger.path,
    run,
    turns: start.calls.length || start.observations.length ? turns : turns.slice(1),
    edits: editsForRun(ledger, run.id, { includeUndone: true }),
  };
}

function callView(ledger: Ledger, c: CallRow): CallView {
  const e = getExecution(ledger, c.id);
  return {
    id: c.id,
    origin: c.origin,
    tool: c.tool,
    args: json(c.args, c.args),
    verdict: c.verdict,
    reason: c.reason,
    status: c.status,
    status_reason: c.status_reason,
    container_id: c.container_id,
    created_at: c.created_at,
    execution: e ? executionView(e) : null,
  };
}

/** The turn's offered tools: a JSON list of names (none recorded: an empty list). */
function toolsetOf(raw: string | null): string[] {
  const names = z.array(z.string()).safeParse(json(raw, []));
  return names.success ? names.data : [];
}

function executionView(e: ExecutionRow): ExecutionView {
  return {
    ...e,
    limits: json(e.limits, e.limits),
    warm: Boolean(e.warm),
    timed_out: Boolean(e.timed_out),
    oom_killed: Boolean(e.oom_killed),
    stdout_truncated: Boolean(e.stdout_truncated),
    stderr_truncated: Boolean(e.stderr_truncated),
  };
}

/** A JSON column, parsed; `fallback` when it is null or not JSON (the raw text is kept then). */
function json(raw: unknown, fallback: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? fallback;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return fallback;
  }
}
