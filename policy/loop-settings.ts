// Every way one run of the loop may differ from another, decided when the run starts and read by
// the stage that owns each setting: retrieval, the triggers, validation, the trust gate, the prompt
// and the observations the model reads. The spec's loop and the stock surface it is measured
// against (spec §9: all six tools with full schemas, no triggers, no evidence gate, no trust marks)
// are two values of this type; no policy function asks which one it runs. The feature flag
// (`TOOL_POLICY=policy|current`, spec §10) picks one by name; the A/B's gate ablation (eval/) turns
// one setting of the spec's loop off.
import type { TriggerName } from './triggers.js';
import type { TrustSkip } from './trust.js';

/** The feature flag's values: what the ledger's runs.policy and the init event record. */
export type PolicyName = 'policy' | 'current';

/**
 * `selection`: the spec's selection prompt (its preamble, one compact line per retrieved candidate).
 * `full-surface`: a stock loop's prompt (every tool's full function schema, every turn).
 */
export type PromptStyle = 'selection' | 'full-surface';

export interface LoopSettings {
  /** The flag value this loop runs under; recorded, never branched on. */
  name: PolicyName;
  /** `retrieved`: the top-5 toolset of retrieve.ts; `all`: the six tools every turn. */
  toolset: 'retrieved' | 'all';
  /** RETRIEVE=embed only: a failed or absent embedder falls back to the keyword map (else all six). */
  embedFallback: boolean;
  /** edit_entity needs a read/search record citing its selector. */
  evidenceGate: boolean;
  /** `silent`: no trigger fires (the gate's memory is still kept, so a resumed run restores it). */
  triggers: 'on' | 'silent';
  /** The triggers switched off one by one (ablation); the others fire. */
  triggersOff: readonly TriggerName[];
  /** What the trust gate skips: everything, the search_symbol round trip, or nothing. */
  trustSkip: readonly TrustSkip[];
  /** Whether the stream and the model see the trust gate's marks. */
  trustMarks: boolean;
  prompt: PromptStyle;
}

/** The spec's loop: every gate on. */
export const SPEC_LOOP: LoopSettings = {
  name: 'policy',
  toolset: 'retrieved',
  embedFallback: true,
  evidenceGate: true,
  triggers: 'on',
  triggersOff: [],
  trustSkip: [],
  trustMarks: true,
  prompt: 'selection',
};

/** The baseline the spec measures against: the stock surface on the same loop. */
export const BASELINE_LOOP: LoopSettings = {
  name: 'current',
  toolset: 'all',
  embedFallback: true,
  evidenceGate: false,
  triggers: 'silent',
  triggersOff: [],
  trustSkip: ['all'],
  trustMarks: false,
  prompt: 'full-surface',
};

export const LOOPS: Readonly<Record<PolicyName, LoopSettings>> = {
  policy: SPEC_LOOP,
  current: BASELINE_LOOP,
};
