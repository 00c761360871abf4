// What one turn works with: the injected effects, the run's options, its settings' strategy, the
// journal, and the one piece of state carried from turn to turn (the latest observation).
import type { LoopDeps, LoopOptions } from '../loop-types.js';
import type { LoopStrategy } from './strategy.js';
import type { Journal } from './journal.js';

export interface TurnContext {
  deps: LoopDeps;
  opts: LoopOptions;
  strategy: LoopStrategy;
  journal: Journal;
  clock: () => number;
  /** The latest observation as the model reads it; null before the first one. */
  latest: string | null;
}

/** How a turn ends: the loop goes on, or the run ends with this outcome. */
export type StepResult =
  | { kind: 'continue' }
  | { kind: 'end'; outcome: 'stop' | 'ask_user' | 'error'; reason: string; question?: string };

export const CONTINUE: StepResult = { kind: 'continue' };
