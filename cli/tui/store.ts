// The bridge between the running agent and the screen: events go in, the folded view comes out,
// and a question waits here for the engineer's answer.
import type { UserVerdict } from '../../policy/approval.js';
import type { LoopEvent } from '../../policy/events.js';
import type { EditApprovalRequest } from '../../primitives/edit-approval.js';
import { inert, inertDeep } from '../../runtime/text/inert.js';
import { cleanText } from './input-keys.js';
import { emptyDraft, type Draft } from './line-editor.js';
import { advance } from './setup-log.js';
import { emptyView, fold, type RunView } from './state.js';

export class ViewStore {
  private view: RunView = emptyView;
  private readonly listeners = new Set<() => void>();
  private pending: ((answer: string | null) => void) | null = null;
  /** The answer being typed: kept here so a redraw of the screen (a resize) keeps it. */
  draft: Draft = emptyDraft;
  private approval: { request: EditApprovalRequest; resolve: (v: UserVerdict) => void } | null = null;
  /**
   * The pending edit's refusal once `n` or Esc was pressed: the reason being typed (null: not
   * refusing). Kept here so that a redraw of the screen keeps it, and Enter still sends the reason
   * rather than applying the edit.
   */
  refusal: Draft | null = null;

  constructor(readonly interactive = true) {}

  get = (): RunView => this.view;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  push = (event: LoopEvent): void => {
    // Every string the screen shows comes from an event: made inert here, once, so no component can
    // forget it. Ink's own styling is the only escape sequence left in a frame.
    this.set(fold(this.view, inertDeep(event), Date.now()));
  };

  /** Ctrl-C or a signal: the screen says the run is stopping (the session does the stopping). */
  interrupt = (): void => {
    if (!this.view.interrupted) this.set({ ...this.view, interrupted: true, question: null });
  };

  private set(view: RunView): void {
    this.view = view;
    for (const l of this.listeners) l();
  }

  /** A set-up line: the environment build's phase or step moves its one progress line. */
  log = (line: string): void => {
    if (this.view.init) return;
    const setup = advance(this.view.setup, inert(line), Date.now());
    if (setup !== this.view.setup) this.set({ ...this.view, setup });
  };

  /** The loop's askUser: resolves when the engineer presses Enter (answer) or Esc (null). */
  ask = (_question: string): Promise<string | null> =>
    new Promise((resolve) => {
      this.pending = resolve;
    });

  /** The engineer's answer (null: declined). No control character reaches the ledger or the model. */
  answer = (answer: string | null): void => {
    const resolve = this.pending;
    this.pending = null;
    this.draft = emptyDraft;
    const clean = answer === null ? null : cleanText(answer).trim();
    resolve?.(clean === '' ? null : clean);
  };

  /** The edit waiting for the engineer's decision, made inert for the screen; null when none. */
  pendingApproval = (): EditApprovalRequest | null => this.approval?.request ?? null;

  /** The authorization stage's AskApproval: resolves when the engineer decides. */
  askApproval = (request: EditApprovalRequest): Promise<UserVerdict> =>
    new Promise((resolve) => {
      this.refusal = null;
      this.approval = {
        request: {
          ...request,
          path: inert(request.path),
          selector: inert(request.selector),
          diff: inert(request.diff),
        },
        resolve,
      };
      for (const l of this.listeners) l();
    });

  decideApproval = (verdict: UserVerdict): void => {
    const pending = this.approval;
    this.approval = null;
    this.refusal = null;
    for (const l of this.listeners) l();
    pending?.resolve(verdict);
  };
}
