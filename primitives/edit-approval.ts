// The authorization stage's hook in edit_entity (docs/approval.md): an edit that passed the lint
// gate is shown to an authorizer before a byte is written. The authorizer (policy/approval.ts)
// decides by the run's approval policy and, under `ask`, by asking the user; this layer only
// carries the question and obeys the answer.

/** One proposed edit, exactly as it would be written. */
export interface EditApprovalRequest {
  /** The ledger call the decision belongs to. */
  callId: string;
  /** Repository-relative file. */
  path: string;
  selector: string;
  /** The unified diff of exactly this edit. */
  diff: string;
}

export type EditDecision = { approved: true } | { approved: false; by: 'user' | 'policy'; reason: string };

export type EditAuthorizer = (request: EditApprovalRequest) => Promise<EditDecision>;

/** How the model's note of a refusal by the user begins (the TUI and `ledger show` read it back). */
export const USER_DENIAL_PREFIX = 'denied by the user: ';

/** What the model reads for a refused edit: who refused it, and why. */
export function deniedMessage(decision: { by: 'user' | 'policy'; reason: string }): string {
  return decision.by === 'user'
    ? `${USER_DENIAL_PREFIX}${decision.reason}`
    : `denied by the approval policy: ${decision.reason}`;
}
