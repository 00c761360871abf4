// The TUI's view of a run, folded from the loop's events: finished turns (rendered once, in Ink's
// <Static>), the live turn, the running sandbox call, the totals for the footer, the question
// waiting for an answer, and the result. Pure, so the screen is a function of the events.
import type { LoopEvent, RunResult } from '../../policy/events.js';
import type { TestFailure } from '../../policy/test-failures.js';
import type { Trust } from '../../runtime/ledger/observation-row.js';
import type { SetupProgress } from './setup-log.js';

export type Line =
  | { kind: 'toolset'; tools: string[] }
  | {
      kind: 'call';
      origin: 'model' | 'trigger';
      tool: string;
      args: Record<string, unknown>;
      trigger?: string;
    }
  /** The model's own words beside its call, shown dimmed above it. */
  | { kind: 'say'; text: string }
  | { kind: 'rejection'; reason: string; reselect: boolean }
  | { kind: 'noop'; reason: string }
  | { kind: 'index'; event: Extract<LoopEvent, { type: 'index' }> }
  | { kind: 'sandbox'; exitCode: number; timedOut: boolean; ms: number }
  | {
      kind: 'observation';
      what: string;
      summary: string;
      trust: Trust | null;
      caveat?: string;
      /** A test's own mark, apart from the trust mark: true passed, false failed, null not a test. */
      passed: boolean | null;
      failures?: TestFailure[];
    }
  | { kind: 'question'; text: string }
  | { kind: 'answer'; text: string };

export interface TurnView {
  turn: number;
  lines: Line[];
}

export interface RunView {
  init: Extract<LoopEvent, { type: 'init' }> | null;
  /** The environment build's progress before the run starts (its phase, step and start). */
  setup: SetupProgress | null;
  environment: Extract<LoopEvent, { type: 'environment' }> | null;
  done: TurnView[];
  current: TurnView | null;
  running: { tool: string; origin: 'model' | 'trigger'; since: number } | null;
  /** Since when the model has been thinking (its request is out), or null. */
  thinking: { since: number } | null;
  /** The last test that ran: the final screen repeats its failures. */
  lastTest: { target: string; passed: boolean; failures: TestFailure[] } | null;
  /** Whether the run committed an edit (so undo has something to undo). */
  edited: boolean;
  turns: number;
  tokens: number;
  costUsd: number | null;
  question: string | null;
  result: RunResult | null;
  /** Ctrl-C (or a signal) arrived: the run is being stopped. */
  interrupted: boolean;
}

export const emptyView: RunView = {
  init: null,
  setup: null,
  environment: null,
  done: [],
  current: null,
  running: null,
  thinking: null,
  lastTest: null,
  edited: false,
  turns: 0,
  tokens: 0,
  costUsd: null,
  question: null,
  result: null,
  interrupted: false,
};

/** The view with lines added to the current turn. */
function addLines(view: RunView, ...lines: Line[]): RunView {
  const current = view.current ?? { turn: 0, lines: [] };
  return { ...view, current: { ...current, lines: [...current.lines, ...lines] } };
}

export function fold(view: RunView, e: LoopEvent, now: number): RunView {
  const add = (...lines: Line[]): RunView => addLines(view, ...lines);
  switch (e.type) {
    case 'init':
      return { ...view, init: e, setup: null };
    case 'environment':
      return { ...view, environment: e };
    case 'index':
      // Its counts once built (the build blocks the process, so there is no frame while it runs).
      return e.phase === 'finished' ? add({ kind: 'index', event: e }) : view;
    case 'turn':
      return { ...closeTurn(view), current: { turn: e.turn, lines: [] }, turns: e.turn };
    case 'toolset':
      // The selection prompt goes to the model right after its toolset.
      return { ...add({ kind: 'toolset', tools: e.tools }), thinking: { since: now } };
    case 'proposal':
      return add(...(e.text ? [{ kind: 'say' as const, text: e.text }] : []), {
        kind: 'call',
        origin: e.origin,
        tool: e.tool,
        args: e.args,
        ...(e.trigger ? { trigger: e.trigger } : {}),
      });
    case 'rejection':
      // A re-selection asks the model again on the same turn.
      return {
        ...add({ kind: 'rejection', reason: e.reason, reselect: e.reselect }),
        ...(e.reselect ? { thinking: { since: now } } : {}),
      };
    case 'noop':
      return { ...add({ kind: 'noop', reason: e.reason }), thinking: null };
    case 'execution':
      return foldExecution(view, e, now);
    case 'observation':
      return foldObservation(view, e);
    case 'usage':
      // The model's reply is in: it has stopped thinking.
      return { ...view, tokens: e.total_tokens, costUsd: e.total_cost_usd, thinking: null };
    case 'ask_user':
      return { ...add({ kind: 'question', text: e.question }), question: e.question };
    case 'answer':
      return { ...add({ kind: 'answer', text: e.answer }), question: null };
    case 'suite':
      // The project's suite runs after the loop: shown as a running call until the result comes.
      return e.phase === 'started'
        ? { ...view, running: { tool: 'suite', origin: 'trigger', since: now }, thinking: null }
        : { ...view, running: null };
    case 'result':
      return { ...closeTurn(view), current: null, running: null, thinking: null, question: null, result: e };
  }
}

/** The turn on screen joins the finished ones (a new turn or the result follows). */
function closeTurn(view: RunView): RunView {
  return { ...view, done: view.current ? [...view.done, view.current] : view.done };
}

/** A tool starting runs it; one finishing stops it and, if it ran in the sandbox, adds its exit line. */
function foldExecution(view: RunView, e: Extract<LoopEvent, { type: 'execution' }>, now: number): RunView {
  if (e.phase === 'started') return { ...view, running: { tool: e.tool, origin: e.origin, since: now } };
  return e.exit_code === null || e.exit_code === undefined
    ? { ...view, running: null }
    : {
        ...addLines(view, {
          kind: 'sandbox',
          exitCode: e.exit_code,
          timedOut: e.timed_out ?? false,
          ms: e.ms ?? 0,
        }),
        running: null,
      };
}

/** An observation's line; a test's also becomes the last test, a committed edit marks the run edited. */
function foldObservation(view: RunView, e: Extract<LoopEvent, { type: 'observation' }>): RunView {
  const passed = e.kind === 'test' ? e.summary.startsWith('passed') : null;
  const failures = e.failures ?? [];
  return {
    ...addLines(view, {
      kind: 'observation',
      what: e.kind,
      summary: e.summary,
      trust: e.trust,
      ...(e.caveat ? { caveat: e.caveat } : {}),
      passed,
      ...(failures.length ? { failures } : {}),
    }),
    lastTest: passed === null ? view.lastTest : { target: e.target, passed, failures },
    edited: view.edited || (e.kind === 'edit' && e.summary.startsWith('committed')),
  };
}
