// The bridge between the running agent and the screen: events go in, the folded view comes out,
// and a question waits here for the engineer's answer.
import type { LoopEvent } from '../../policy/events.js';
import { inert, inertDeep } from '../../runtime/text/inert.js';
import { emptyView, fold, type RunView } from './state.js';

export class ViewStore {
  private view: RunView = emptyView;
  private readonly listeners = new Set<() => void>();
  private pending: ((answer: string | null) => void) | null = null;

  constructor(readonly interactive = true) {}

  get = (): RunView => this.view;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  push = (event: LoopEvent): void => {
    // Every string the screen shows comes from an event: made inert here, once, so no component can
    // forget it. Ink's own styling is the only escape sequence left in a frame.
    this.view = fold(this.view, inertDeep(event), Date.now());
    for (const l of this.listeners) l();
  };

  /** A set-up line (the environment build's progress) shown until the run starts. */
  log = (line: string): void => {
    if (this.view.init) return;
    this.view = { ...this.view, setup: inert(line.trim()) };
    for (const l of this.listeners) l();
  };

  /** The loop's askUser: resolves when the engineer presses Enter (answer) or Esc (null). */
  ask = (_question: string): Promise<string | null> =>
    new Promise((resolve) => {
      this.pending = resolve;
    });

  answer = (answer: string | null): void => {
    const resolve = this.pending;
    this.pending = null;
    resolve?.(answer);
  };
}
