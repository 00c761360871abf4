// Counterfactual ablation (spec section 9, call precision): re-run an instance with ONE of its
// executed model calls suppressed. The wrapper lets every call through except the n-th model call,
// which is not run: it is recorded in the ledger as not_executed ("suppressed by the A/B ablation")
// and the loop gets a result that says so, exactly where the real result would have been.
import type { ExecutedLike, LoopTools } from '../../policy/loop.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';

export const SUPPRESSED = 'suppressed by the A/B ablation: this call was not run';

const KIND: Record<string, string> = { read_entity: 'read', search_symbol: 'search', search_code: 'search', edit_entity: 'edit', run_test: 'test', execute: 'execute' };

/** The argument that names what a call is about (selector, query, target, code): how calls are matched. */
export function callSubject(tool: string, args: Record<string, unknown>): string {
  const value = tool === 'read_entity' || tool === 'edit_entity' ? args.selector : tool === 'run_test' ? args.target : tool === 'execute' ? args.code : args.query;
  return `${tool}:${typeof value === 'string' ? value : ''}`;
}

export interface Suppression {
  /** 0-based index among the run's executed model calls. */
  index: number;
  /** Set once the call was suppressed: what it was. */
  suppressed: { tool: string; subject: string; callId: string } | null;
}

export function suppressNth(index: number, ledger: Ledger, owner: string, runId: () => string | undefined): { suppression: Suppression; wrap: (tools: LoopTools) => LoopTools } {
  const suppression: Suppression = { index, suppressed: null };
  let seen = 0;
  const wrap = (tools: LoopTools): LoopTools => ({
    selectorExists: (s) => tools.selectorExists(s),
    hasEvidence: (s) => tools.hasEvidence(s),
    lintFile: (selector, path, turnId) => tools.lintFile(selector, path, turnId),
    run: async (call, origin, turnId): Promise<ExecutedLike> => {
      if (origin !== 'model' || seen++ !== index) return tools.run(call, origin, turnId);
      const run = runId();
      if (!run) throw new Error('the ablation wrapper ran before the run was created');
      const callId = ledger.dispatchCall({ runId: run, tool: call.tool, args: call.args, origin, owner, turnId });
      ledger.endCall(callId, 'not_executed', SUPPRESSED);
      const subject = callSubject(call.tool, call.args);
      suppression.suppressed = { tool: call.tool, subject, callId };
      return { callId, kind: KIND[call.tool] ?? call.tool, target: subject.slice(call.tool.length + 1, call.tool.length + 81), result: { ok: false, error: SUPPRESSED, data: null }, receipt: null };
    },
  });
  return { suppression, wrap };
}
