// The policy arm's gates as a closed set of names, each switchable off in isolation for the ablation
// rule of docs/policy.md, "Gate ablation": "each gate is removed in isolation, everything else
// held fixed, and the delta measured". Every gate is on unless a switch turns it off, so the default
// loop is the spec's loop, unchanged. The switches are read by the modules that own each gate:
//   retrieval_map                  retrieve.ts via the loop: off → all six tools, as the baseline
//   retrieval_embed_fallback       retrieve.ts: off → a failed/absent embedder presents all six tools
//                                  instead of falling back to the keyword map (RETRIEVE=embed only)
//   evidence_gate                  validate.ts: off → edit_entity needs no read/search evidence
//   trigger_post_edit_lint         triggers.ts: off → no lint after a committed edit
//   trigger_post_patch_test        triggers.ts: off → no repro test when a patch is formed
//   trigger_symbol_token           triggers.ts: off → no search_symbol on symbol tokens
//   trust_round_trip_search_symbol trust.ts: off → search_symbol matches are not round-trip checked
//   trust_gate                     trust.ts: off → no check at all, every result is trusted as captured

import type { TriggerName } from './triggers.js';
import type { TrustSkip } from './trust.js';

/** In the spec's ablation order: its two weakest a-priori cases first, then every other gate. */
export const GATE_NAMES = [
  'trust_round_trip_search_symbol',
  'retrieval_embed_fallback',
  'retrieval_map',
  'evidence_gate',
  'trigger_post_edit_lint',
  'trigger_post_patch_test',
  'trigger_symbol_token',
  'trust_gate',
] as const;

export type GateName = (typeof GATE_NAMES)[number];

/** `false` turns a gate off; an absent name (or `true`) leaves it on. */
export type GateSwitches = Readonly<Partial<Record<GateName, boolean>>>;

export function isGateName(name: string): name is GateName {
  return (GATE_NAMES as readonly string[]).includes(name);
}

export function gateOn(gates: GateSwitches | undefined, name: GateName): boolean {
  return gates?.[name] !== false;
}

/** Every gate on except `name`: one ablated variant. */
export function withoutGate(name: GateName): GateSwitches {
  return { [name]: false };
}

/** The switches as each stage reads them: decoded once, so no stage re-interprets gate names. */
export interface DecodedGates {
  retrievalMap: boolean;
  retrievalEmbedFallback: boolean;
  evidenceGate: boolean;
  /** The triggers switched off. */
  triggersOff: TriggerName[];
  /** What the trust gate skips: everything, the search_symbol round trip, or nothing. */
  trustSkip: TrustSkip[];
}

const TRIGGER_GATES = [
  ['post_edit_lint', 'trigger_post_edit_lint'],
  ['post_patch_test', 'trigger_post_patch_test'],
  ['symbol_token', 'trigger_symbol_token'],
] as const satisfies ReadonlyArray<readonly [TriggerName, GateName]>;

export function decodeGates(gates: GateSwitches | undefined): DecodedGates {
  const on = (name: GateName) => gateOn(gates, name);
  return {
    retrievalMap: on('retrieval_map'),
    retrievalEmbedFallback: on('retrieval_embed_fallback'),
    evidenceGate: on('evidence_gate'),
    triggersOff: TRIGGER_GATES.filter(([, gate]) => !on(gate)).map(([trigger]) => trigger),
    trustSkip: !on('trust_gate')
      ? ['all']
      : !on('trust_round_trip_search_symbol')
        ? ['search_symbol_round_trip']
        : [],
  };
}
