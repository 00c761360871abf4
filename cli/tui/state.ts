// The TUI's view of a run, folded from the loop's events: finished turns (rendered once, in Ink's
// <Static>), the live turn, the running sandbox call, the totals for the footer, the question
// waiting for an answer, and the result. Pure, so the screen is a function of the events.
import type { LoopEvent, RunResult } from '../../policy/events.js';

export type Line =
  | { kind: 'toolset'; tools: string[] }
  | {
      kind: 'call';
      origin: 'model' | 'trigger';
      tool: string;
      args: Record<string, unknown>;
      trigger?: string;
    }
  | { kind: 'rejection'; reason: string; reselect: boolean }
  | { kind: 'noop'; reason: string }
  | { kind: 'sandbox'; exitCode: number; timedOut: boolean; ms: number }
  | {
      kind: 'observation';
      what: string;
      summary: string;
      trust: 'trusted' | 'unverified' | null;
      caveat?: string;
    }
  | { kind: 'question'; text: string }
  | { kind: 'answer'; text: string };

export interface TurnView {
  turn: number;
  lines: Line[];
}

export interface RunView {
  init: Extract<LoopEvent, { type: 'init' }> | null;
  /** The last set-up line before the run starts (an environment build's progress). */
  setup: string | null;
  environment: Extract<LoopEvent, { type: 'environment' }> | null;
  done: TurnView[];
  current: TurnView | null;
  running: { tool: string; origin: 'model' | 'trigger'; since: number } | null;
  turns: number;
  tokens: number;
  costUsd: number | null;
  question: string | null;
  result: RunResult | null;
}

export const emptyView: RunView = {
  init: null,
  setup: null,
  environment: null,
  done: [],
  current: null,
  running: null,
  turns: 0,
  tokens: 0,
  costUsd: null,
  question: null,
  result: null,
};

export function fold(view: RunView, e: LoopEvent, now: number): RunView {
  const add = (line: Line): RunView => {
    const current = view.current ?? { turn: 0, lines: [] };
    return { ...view, current: { ...current, lines: [...current.lines, line] } };
  };
  switch (e.type) {
    case 'init':
      return { ...view, init: e, setup: null };
    case 'environment':
      return { ...view, environment: e };
    case 'turn':
      return {
        ...view,
        done: view.current ? [...view.done, view.current] : view.done,
        current: { turn: e.turn, lines: [] },
        turns: e.turn,
      };
    case 'toolset':
      return add({ kind: 'toolset', tools: e.tools });
    case 'proposal':
      return add({
        kind: 'call',
        origin: e.origin,
        tool: e.tool,
        args: e.args,
        ...(e.trigger ? { trigger: e.trigger } : {}),
      });
    case 'rejection':
      return add({ kind: 'rejection', reason: e.reason, reselect: e.reselect });
    case 'noop':
      return add({ kind: 'noop', reason: e.reason });
    case 'execution':
      if (e.phase === 'started') return { ...view, running: { tool: e.tool, origin: e.origin, since: now } };
      return e.exit_code === null || e.exit_code === undefined
        ? { ...view, running: null }
        : {
            ...add({ kind: 'sandbox', exitCode: e.exit_code, timedOut: e.timed_out ?? false, ms: e.ms ?? 0 }),
            running: null,
          };
    case 'observation':
      return add({
        kind: 'observation',
        what: e.kind,
        summary: e.summary,
        trust: e.trust,
        ...(e.caveat ? { caveat: e.caveat } : {}),
      });
    case 'usage':
      return { ...view, tokens: e.total_tokens, costUsd: e.total_cost_usd };
    case 'ask_user':
      return { ...add({ kind: 'question', text: e.question }), question: e.question };
    case 'answer':
      return { ...add({ kind: 'answer', text: e.answer }), question: null };
    case 'result':
      return {
        ...view,
        done: view.current ? [...view.done, view.current] : view.done,
        current: null,
        running: null,
        question: null,
        result: e,
      };
  }
}
