// What a tool's precondition and trust checks (declared in its tool.ts) are given, and the small
// rules several of them share. Pure: the lookups are injected, so validation and the trust gate
// (policy/validate.ts, policy/trust.ts) stay pure.

/** The lookups the preconditions need, injected so validation stays pure. */
export interface PreconditionChecks {
  /** Whether the selector exists in the code index (`code_nodes`). */
  selectorExists(selector: string): boolean;
  /** Whether the run's evidence ledger holds a read/search record citing the selector. */
  hasEvidence(selector: string): boolean;
}

/** Parts of the trust gate the ablation rule can remove: one check, or the whole gate. */
export type TrustSkip = 'search_symbol_round_trip' | 'all';

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
