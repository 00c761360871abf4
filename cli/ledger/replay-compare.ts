// Two runs of the same issue compared turn by turn — the recorded one and its replay: each turn's
// toolset and parsed action, then its calls (origin, tool, args, verdict, rejection reason, final
// status) with their executions' exit codes, then its observations' kinds and trust marks, and at
// the end the outcome. Prompt digests are counted, not compared: a replay rebuilds each prompt with
// the recorded run's boundary, but a prompt quotes sandbox output, and pytest's own timing line
// ("4 passed in 0.07s") differs between any two runs. The first difference is the answer; timings, ids and output bytes are not
// compared (they differ between any two runs).
import { loopTurns } from './loop-turns.js';
import type { CallView, RunDocument, TurnView } from './run-document.js';
import { failedModelCallErrorSchema } from '../../policy/turn/select.js';

type DivergenceKind =
  | 'turn count'
  | 'toolset'
  | 'action'
  | 'call count'
  | 'call'
  | 'execution'
  | 'observation count'
  | 'observation'
  | 'outcome';

interface Divergence {
  /** 'before turn 1', 'turn N' (the loop's numbering, re-selections marked), or 'end of run'. */
  at: string;
  kind: DivergenceKind;
  /** 1-based position of the call or observation within its turn. */
  index?: number;
  recorded: unknown;
  replayed: unknown;
  /** For an execution: the end of each side's stderr, which usually says why. */
  stderr?: { recorded: string; replayed: string };
}

export interface Comparison {
  divergence: Divergence | null;
  compared: {
    turns: number;
    calls: number;
    executions: number;
    observations: number;
    /** Compared turns whose prompt is byte for byte the recorded one (same digest). */
    identical_prompts: number;
  };
}

export function compareRuns(recorded: RunDocument, replayed: RunDocument): Comparison {
  const compared = { turns: 0, calls: 0, executions: 0, observations: 0, identical_prompts: 0 };
  const labels = turnLabels(recorded.turns);
  const done = (divergence: Divergence | null): Comparison => ({ divergence, compared });
  const count = Math.max(recorded.turns.length, replayed.turns.length);
  for (let i = 0; i < count; i++) {
    const a = recorded.turns[i];
    const b = replayed.turns[i];
    const at = a ? labels[i]! : 'end of run';
    if (!a || !b || a.idx !== b.idx)
      return done({ at, kind: 'turn count', recorded: turnCount(recorded), replayed: turnCount(replayed) });
    compared.turns++;
    if (!same(a.toolset, b.toolset))
      return done({ at, kind: 'toolset', recorded: a.toolset, replayed: b.toolset });
    if (a.prompt_digest !== null && a.prompt_digest === b.prompt_digest) compared.identical_prompts++;
    if (!same(actionOf(a), actionOf(b)))
      return done({ at, kind: 'action', recorded: actionOf(a), replayed: actionOf(b) });
    const divergence = compareCalls(at, a, b, compared) ?? compareObservations(at, a, b, compared);
    if (divergence) return done(divergence);
  }
  if (recorded.run.outcome !== replayed.run.outcome)
    return done({
      at: 'end of run',
      kind: 'outcome',
      recorded: recorded.run.outcome,
      replayed: replayed.run.outcome,
    });
  return done(null);
}

function turnLabels(turns: readonly TurnView[]): string[] {
  const numbers = loopTurns(turns);
  let n = 0;
  return turns.map((t) => {
    if (t.idx === null) return 'before turn 1';
    const { turn, reselection } = numbers[n++]!;
    return `turn ${turn}${reselection ? ' (re-selection)' : ''}`;
  });
}

function turnCount(doc: RunDocument): number {
  return doc.turns.filter((t) => t.idx !== null).length;
}

/** A failed model call is the same event whatever its message (the replay's script just ran out). */
function actionOf(t: TurnView): unknown {
  const failed = failedModelCallErrorSchema.safeParse(t.action);
  return failed.success ? { error: 'the model call failed' } : t.action;
}

function callOf(c: CallView) {
  return {
    origin: c.origin,
    tool: c.tool,
    args: c.args,
    verdict: c.verdict,
    reason: c.reason,
    status: c.status,
  };
}

function executionOf(c: CallView) {
  const e = c.execution;
  return e ? { exit_code: e.exit_code, timed_out: e.timed_out, oom_killed: e.oom_killed } : null;
}

function stderrTail(c: CallView): string {
  return (c.execution?.stderr ?? '').trimEnd().slice(-300);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Key order does not matter in JSON objects; array order does. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([k, x]) => [k, canonical(x)]),
    );
  return v;
}

type Counts = Comparison['compared'];

/** The first call of the turn (or its execution) that differs, or a different number of calls. */
function compareCalls(at: string, a: TurnView, b: TurnView, compared: Counts): Divergence | null {
  const callCount = Math.min(a.calls.length, b.calls.length);
  for (let j = 0; j < callCount; j++) {
    const [x, y] = [a.calls[j]!, b.calls[j]!];
    if (!same(callOf(x), callOf(y)))
      return { at, kind: 'call', index: j + 1, recorded: callOf(x), replayed: callOf(y) };
    compared.calls++;
    if (!same(executionOf(x), executionOf(y))) {
      return {
        at,
        kind: 'execution',
        index: j + 1,
        recorded: executionOf(x),
        replayed: executionOf(y),
        stderr: { recorded: stderrTail(x), replayed: stderrTail(y) },
      };
    }
    if (x.execution) compared.executions++;
  }
  if (a.calls.length !== b.calls.length) {
    return {
      at,
      kind: 'call count',
      index: callCount + 1,
      recorded: a.calls.slice(callCount).map(callOf),
      replayed: b.calls.slice(callCount).map(callOf),
    };
  }
  return null;
}

/** The first observation of the turn whose kind or trust differs, or a different number of them. */
function compareObservations(at: string, a: TurnView, b: TurnView, compared: Counts): Divergence | null {
  const obsCount = Math.min(a.observations.length, b.observations.length);
  for (let j = 0; j < obsCount; j++) {
    const [x, y] = [a.observations[j]!, b.observations[j]!];
    const [p, q] = [
      { kind: x.kind, trust: x.trust },
      { kind: y.kind, trust: y.trust },
    ];
    if (!same(p, q)) return { at, kind: 'observation', index: j + 1, recorded: p, replayed: q };
    compared.observations++;
  }
  if (a.observations.length !== b.observations.length) {
    const kinds = (t: TurnView) =>
      t.observations.slice(obsCount).map((o) => ({ kind: o.kind, trust: o.trust }));
    return {
      at,
      kind: 'observation count',
      index: obsCount + 1,
      recorded: kinds(a),
      replayed: kinds(b),
    };
  }
  return null;
}
