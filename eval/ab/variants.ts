// What the A/B runner runs on each task: the real arms (policy, current) and, with --gate-ablation,
// the spec's loop with one gate switched off (docs/policy.md, "Gate ablation"). Each variant has its
// own ledger key — `policy`, `current`, `policy-no-<gate>` — so an ablated variant is resumable like
// an arm and never collides with the real arms' finished instances.
import type { Arm } from './metrics.js';
import type { LoopSettings } from '../../policy/loop-settings.js';
import {
  GATE_NAMES,
  isGateName,
  withoutGate,
  withoutGateLoop,
  type GateName,
  type GateSwitches,
} from './gates.js';
import { UsageError } from '../../core/exit-codes.js';

export interface Variant {
  /** The ab_instances arm key. */
  key: string;
  /** The loop arm it runs. */
  arm: Arm;
  /** The gate switched off, or null for a real arm. */
  gate: GateName | null;
  /** A gate variant's loop and the switches that made it (recorded in the run's config). */
  loop?: { settings: LoopSettings; gates: GateSwitches };
}

export function armVariant(arm: Arm): Variant {
  return { key: arm, arm, gate: null };
}

export function gateVariant(gate: GateName): Variant {
  return {
    key: `policy-no-${gate}`,
    arm: 'policy',
    gate,
    loop: { settings: withoutGateLoop(gate), gates: withoutGate(gate) },
  };
}

/** `--gate-ablation G1,G2|all`: the named gates, in GATE_NAMES order (the two weakest cases first). */
export function parseGateAblation(text: string): GateName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError('--gate-ablation names no gate');
  if (names.includes('all')) return [...GATE_NAMES];
  const bad = names.find((n) => !isGateName(n));
  if (bad !== undefined)
    throw new UsageError(`--gate-ablation: unknown gate '${bad}' (gates: ${GATE_NAMES.join(', ')}, or all)`);
  return GATE_NAMES.filter((g) => names.includes(g));
}

/**
 * Why a gate cannot be ablated in this configuration, or null when it can. The embed branch's
 * fallback exists only with embedding retrieval configured: without it the branch never runs, and
 * removing it would measure nothing but noise, so it is reported as not applicable, not as a delta.
 */
export function notApplicable(gate: GateName, env: { embedConfigured: boolean }): string | null {
  if (gate === 'retrieval_embed_fallback' && !env.embedConfigured)
    return 'not applicable here: embedding retrieval is not configured (RETRIEVE=embed with PIPER_EMBED_MODEL, OPENAI_BASE_URL and OPENAI_API_KEY), so the embed branch and its fallback never run';
  return null;
}

/** `--arms A,B`: policy and/or current, each once, in the order given. */
export function parseArms(text: string): Arm[] {
  const arms = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = arms.find((a) => a !== 'policy' && a !== 'current');
  if (bad !== undefined) throw new UsageError(`--arms takes policy and/or current, got '${bad}'`);
  if (arms.length === 0) throw new UsageError('--arms names no arm');
  return [...new Set(arms)] as Arm[];
}
