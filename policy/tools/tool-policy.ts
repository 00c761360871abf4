// What the policy decides about one tool, declared in the tool's policy module
// (policy/tools/<name>.ts) beside its definition (primitives/tools/<name>.ts): validation's rule 3
// (its precondition), the trust gate's checks of a result that conforms to its schema, and whether
// retrieval presents it when no keyword scores. Validation, the trust gate and retrieval read the
// table of these (all-policies.ts); none of them names a tool.
import type { SandboxVerdict } from '../../primitives/results/sandbox-results.js';
import type { ToolArgs, ToolName, ToolResultOf } from '../../primitives/tools/all-tools.js';

/** The lookups the preconditions need, injected so validation stays pure. */
export interface PreconditionChecks {
  /** Whether the selector exists in the code index (`code_nodes`). */
  selectorExists(selector: string): boolean;
  /** Whether the run's evidence ledger holds a read/search record citing the selector. */
  hasEvidence(selector: string): boolean;
}

/** Parts of the trust gate the ablation rule can remove: one check, or the whole gate. */
export type TrustSkip = 'search_symbol_round_trip' | 'all';

export interface ToolPolicy<N extends ToolName> {
  /** Rule 3: what follows `precondition failed: `, or null when the call may run. */
  precondition(
    args: ToolArgs<N>,
    checks: PreconditionChecks,
    gates: { evidenceGate: boolean },
  ): string | null;
  /** The trust gate's checks after schema conformance, each failure as `<check>: <detail>`. */
  trustChecks(
    args: ToolArgs<N>,
    result: ToolResultOf<N>,
    receipt: SandboxVerdict | null | undefined,
    skip: readonly TrustSkip[],
  ): string[];
  /** One of the default set retrieval presents when no keyword scores (the observe-only tools). */
  presentedByDefault: boolean;
}

/** An injected lookup that throws counts as "no": validation never throws, and never lets a call through on doubt. */
export function ask(check: () => boolean): boolean {
  try {
    return check() === true;
  } catch {
    return false;
  }
}

/** The precondition of a tool whose one text argument must not be blank. */
export function notBlank(value: string, failure: string): string | null {
  return value.trim() === '' ? failure : null;
}
