// Counterfactual ablation for call precision (docs/policy.md, "The A/B protocol"): re-run an
// instance with ONE of its executed model calls suppressed. The wrapper lets every call through
// except the n-th model call, which is not run: it is recorded in the ledger as not_executed
// ("suppressed by the A/B ablation") and the loop gets a result that says so, exactly where the
// real result would have been.
//
// "Removed" means the call cannot happen in the re-run: a later model call identical to it (same
// tool, same arguments) is suppressed too. Otherwise a model that simply asks again would get the
// same result one turn later, and no call of any retrying model could ever be necessary — call
// precision would measure the model's persistence, not whether the call was needed.
import type { ExecutedLike, LoopTools } from '../../policy/loop.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { callSubject, observationKind } from '../../primitives/tools/all-tools.js';
import { CallRecord } from '../../runtime/ledger/call-record.js';

export const SUPPRESSED = 'suppressed by the A/B ablation: this call was not run';

/** The argument that names what a call is about (selector, query, target, code): how calls are matched. */
export function callKey(tool: string, args: Record<string, unknown>): string {
  return `${tool}:${callSubject(tool, args)}`;
}

export interface Suppression {
  /** 0-based index among the run's executed model calls. */
  index: number;
  /** Set once the call was suppressed: what it was. */
  suppressed: { tool: string; subject: string; callId: string } | null;
  /** How many model calls were suppressed in all: the call and its identical repeats. */
  count: number;
}

/** Arguments as canonical JSON (keys sorted), so two identical calls compare equal. */
function canonical(tool: string, args: Record<string, unknown>): string {
  return JSON.stringify([
    tool,
    Object.keys(args)
      .sort()
      .map((k) => [k, args[k]]),
  ]);
}

export function suppressNth(
  index: number,
  ledger: Ledger,
  owner: string,
  runId: () => string | undefined,
): { suppression: Suppression; wrap: (tools: LoopTools) => LoopTools } {
  const suppression: Suppression = { index, suppressed: null, count: 0 };
  let seen = 0;
  let removed: string | null = null;
  const wrap = (tools: LoopTools): LoopTools => ({
    selectorExists: (s) => tools.selectorExists(s),
    hasEvidence: (s) => tools.hasEvidence(s),
    // The dispatch options (the proposal's announced id, the `execution started` hook) go along,
    // so a suppressed run's stream names the same call ids as its ledger.
    lintFile: (selector, path, turnId, dispatch) => tools.lintFile(selector, path, turnId, dispatch),
    run: async (call, origin, turnId, dispatch): Promise<ExecutedLike> => {
      if (origin !== 'model') return tools.run(call, origin, turnId, dispatch);
      const key = canonical(call.tool, call.args);
      if (seen++ !== index && key !== removed) return tools.run(call, origin, turnId, dispatch);
      removed ??= key;
      const run = runId();
      if (!run) throw new Error('the ablation wrapper ran before the run was created');
      const record = CallRecord.dispatch(
        ledger,
        { runId: run, tool: call.tool, args: call.args, origin, owner, turnId },
        dispatch,
      );
      record.ended('not_executed', SUPPRESSED);
      const callId = record.id;
      const subject = callKey(call.tool, call.args);
      suppression.suppressed ??= { tool: call.tool, subject, callId };
      suppression.count++;
      return {
        callId,
        kind: observationKind(call.tool, origin),
        target: subject.slice(call.tool.length + 1, call.tool.length + 81),
        result: { ok: false, error: SUPPRESSED, data: null },
        receipt: null,
      };
    },
  });
  return { suppression, wrap };
}
