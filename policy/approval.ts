// The authorization stage (docs/approval.md): may this edit be written to the user's files?
// Sandboxed execute and run_test need no approval (they cannot touch the host); edit_entity does.
//   ask        the user decides each edit (the TUI's default): once, this file for this run, or no
//   auto       every edit that passes the lint gate is written (headless default: no one to ask;
//              every edit is recorded and undoable)
//   read-only  no edit is written (a review mode: the agent investigates and proposes)
// A file-scoped approval lives in this object only: it cannot outlive the run, and a resumed run in
// another process starts with none — reuse beyond its scope is impossible by construction.
import { createHash } from 'node:crypto';
import type { EditApprovalRequest, EditAuthorizer, EditDecision } from '../primitives/edit-approval.js';
import { editEntityTool } from '../primitives/tools/edit-entity/tool.js';

export const APPROVAL_MODES = ['ask', 'auto', 'read-only'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** What the user answered to one proposed edit. */
export type UserVerdict = { verdict: 'once' } | { verdict: 'file' } | { verdict: 'deny'; reason: string };

/** Shows the user one proposed edit and waits for the verdict (the TUI implements it). */
export type AskApproval = (request: EditApprovalRequest) => Promise<UserVerdict>;

/** One decision as the ledger keeps it (runtime/ledger/approvals.ts); returns the row id. */
export interface ApprovalRecord {
  callId: string;
  operation: typeof editEntityTool.name;
  path: string;
  selector: string;
  decision: 'approved' | 'denied';
  scope: 'once' | 'file';
  decidedBy: 'user' | 'policy:auto' | 'policy:read-only';
  basis?: number;
  reason?: string;
  diffSha256: string;
}

export const READ_ONLY_REASON =
  'this run is read-only (--approval read-only): no edit is written; say in your stop reason what you would change';

/** The reason recorded when the user refuses without giving one. */
export const NO_REASON_GIVEN = 'no reason given';

export function createEditAuthorizer(opts: {
  mode: ApprovalMode;
  /** Required for `ask`. */
  ask?: AskApproval;
  record: (decision: ApprovalRecord) => number;
}): EditAuthorizer {
  const { mode, ask, record } = opts;
  if (mode === 'ask' && !ask) throw new Error('approval mode ask needs a way to ask the user');
  /** file → the approval that covers every later edit of it in this run. */
  const fileApprovals = new Map<string, number>();

  return async (request: EditApprovalRequest): Promise<EditDecision> => {
    const base = {
      callId: request.callId,
      operation: editEntityTool.name,
      path: request.path,
      selector: request.selector,
      diffSha256: createHash('sha256').update(request.diff).digest('hex'),
    };
    if (mode === 'auto') {
      record({ ...base, decision: 'approved', scope: 'once', decidedBy: 'policy:auto' });
      return { approved: true };
    }
    if (mode === 'read-only') {
      record({
        ...base,
        decision: 'denied',
        scope: 'once',
        decidedBy: 'policy:read-only',
        reason: READ_ONLY_REASON,
      });
      return { approved: false, by: 'policy', reason: READ_ONLY_REASON };
    }
    const basis = fileApprovals.get(request.path);
    if (basis !== undefined) {
      record({ ...base, decision: 'approved', scope: 'file', decidedBy: 'user', basis });
      return { approved: true };
    }
    const answer = await ask!(request);
    if (answer.verdict === 'deny') {
      const reason = cleanReason(answer.reason) || NO_REASON_GIVEN;
      record({ ...base, decision: 'denied', scope: 'once', decidedBy: 'user', reason });
      return { approved: false, by: 'user', reason };
    }
    const id = record({ ...base, decision: 'approved', scope: answer.verdict, decidedBy: 'user' });
    if (answer.verdict === 'file') fileApprovals.set(request.path, id);
    return { approved: true };
  };
}

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

/** One line, no control characters: the reason reaches the model and the ledger. */
function cleanReason(reason: string): string {
  return reason.replace(CONTROLS, ' ').trim().slice(0, 500);
}
