// The spec's loop's gates as a closed set of names, each switchable off in isolation for the ablation
// rule of docs/policy.md, "Gate ablation": "each gate is removed in isolation, everything else
// held fixed, and the delta measured". Every gate is on unless a switch turns it off, so the default
// loop is the spec's loop, unchanged. Each gate is one setting of the loop (policy/loop-settings.ts),
// read by the stage that owns it:
//   retrieval_map                  toolset: off → all six tools, as the baseline
//   retrieval_embed_fallback       embedFallback: off → a failed/absent embedder presents all six
//                                  tools instead of falling back to the keyword map (RETRIEVE=embed)
//   evidence_gate                  evidenceGate: off → edit_entity needs no read/search evidence
//   trigger_post_edit_lint         triggersOff: no lint after a committed edit
//   trigger_post_patch_test        triggersOff: no repro test when a patch is formed
//   trigger_symbol_token           triggersOff: no search_symbol on symbol tokens
//   trust_round_trip_search_symbol trustSkip: search_symbol matches are not round-trip checked
//   trust_gate                     trustSkip: no check at all, every result is trusted as captured

import { SPEC_LOOP, type LoopSettings } from '../../policy/loop-settings.js';

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

/** Every gate on except `name`: one ablated variant. */
export function withoutGate(name: GateName): GateSwitches {
  return { [name]: false };
}

/** The spec's loop with one gate switched off: the setting that gate owns, and nothing else. */
const ABLATED: Record<GateName, (loop: LoopSettings) => LoopSettings> = {
  trust_round_trip_search_symbol: (loop) => ({ ...loop, trustSkip: ['search_symbol_round_trip'] }),
  retrieval_embed_fallback: (loop) => ({ ...loop, embedFallback: false }),
  retrieval_map: (loop) => ({ ...loop, toolset: 'all' }),
  evidence_gate: (loop) => ({ ...loop, evidenceGate: false }),
  trigger_post_edit_lint: (loop) => ({ ...loop, triggersOff: ['post_edit_lint'] }),
  trigger_post_patch_test: (loop) => ({ ...loop, triggersOff: ['post_patch_test'] }),
  trigger_symbol_token: (loop) => ({ ...loop, triggersOff: ['symbol_token'] }),
  trust_gate: (loop) => ({ ...loop, trustSkip: ['all'] }),
};

export function withoutGateLoop(name: GateName): LoopSettings {
  return ABLATED[name](SPEC_LOOP);
}
