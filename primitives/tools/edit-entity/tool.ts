// edit_entity: an exact-string replace scoped to one entity, linter-gated and authorized before it
// is written. Its precondition is the evidence gate (an earlier read or search of this run returned
// the selector; the ablation rule can switch it off); the trust gate checks a committed edit: its
// diff shows the replacement once (round-trip.ts), and it carries the harness's clean lint verdict.
// The edit itself: effect.ts.
import { z } from 'zod';
import { editsForRun } from '../../../runtime/ledger/edits.js';
import { editEntity } from './effect.js';
import { editResultSchema, type EditEnvelope } from '../../results/edit-result.js';
import { runInProcess } from '../in-process.js';
import { defineTool, stringArg, type ExecutedCall } from '../tool.js';
import { codeOf, type ToolContext } from '../tool-context.js';
import type { CallRecord } from '../../../runtime/ledger/call-record.js';
import { editRoundTrip } from './round-trip.js';
import { ask } from '../tool-checks.js';

export const editEntityTool = defineTool({
  name: 'edit_entity',
  description: 'exact-string replace scoped to an entity, linter-gated',
  returns: 'envelope {ok, error, data:{committed, lint_clean, diff}}',
  category: 'edit',
  keywords: ['edit', 'change', 'fix', 'patch', 'replace', 'modify', 'update', 'write', 'correct'],
  args: z.strictObject({
    selector: z.string(),
    search: z.string().max(400),
    replace: z.string().max(2000),
  }),
  result: editResultSchema,
  kind: 'edit',
  sandboxed: false,
  subject: (args) => stringArg(args, 'selector'),
  run: (ctx, args) =>
    runInProcess(
      ctx,
      args,
      (callId) => {
        const o = ctx.options;
        const { repoRoot, ledger, runId, authorizeEdit: authorize, signal } = o;
        const { index, lint } = codeOf(o);
        return editEntity({ repoRoot, index, ledger, runId, callId, lint, authorize, signal }, args);
      },
      (call, result) => editRecorded(ctx, args.selector, call, result),
    ),

  precondition: (args, checks, gates) =>
    !gates.evidenceGate || ask(() => checks.hasEvidence(args.selector))
      ? null
      : `no evidence for selector ${args.selector}`,
  trustChecks: (args, result) => {
    if (!result.ok || !result.data || !result.data.committed) return [];
    const failures: string[] = [];
    const roundTrip = editRoundTrip(args.search, args.replace, result.data.diff);
    if (roundTrip) failures.push(`round-trip: ${roundTrip}`);
    if (!result.data.lint_clean)
      failures.push('lint: committed edit carries lint_clean false from the harness lint');
    return failures;
  },
  presentedByDefault: false,
});

/** An edit's terminal record: denied (it never ran), or completed with its ledger edit row. */
function editRecorded(
  ctx: ToolContext,
  selector: string,
  call: CallRecord,
  result: EditEnvelope,
): ExecutedCall {
  const o = ctx.options;
  const callId = call.id;
  const denied = result.data?.denied;
  if (denied) {
    // A refusal is a terminal record of its own: the call never ran, and the model is told so.
    call.ended('denied', denied.reason);
    return {
      callId,
      kind: 'denied',
      target: ctx.target,
      result,
      receipt: null,
      denied: { reason: result.error },
    };
  }
  call.completed();
  const executed: ExecutedCall = { callId, kind: ctx.kind, target: ctx.target, result, receipt: null };
  if (result.data?.committed === true) {
    const row = editsForRun(o.ledger, o.runId)
      .filter((e) => e.call_id === callId)
      .at(-1);
    if (row)
      executed.edit = {
        editId: String(row.id),
        selector: o.index?.resolve(selector) ?? selector,
        path: row.path,
      };
  }
  return executed;
}
