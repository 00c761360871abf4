// The A/B arm as a strategy: what differs between the spec's loop (`policy`) and the baseline
// (`current`) is decided here once, when the run starts, so the turn never asks which arm it runs.
//   retrieve   policy: the tool map (or embeddings), unless its gate is off; current: all six tools
//   triggers   policy: the trigger gate; current: none fire (their memory is still kept for resume)
//   trustView  policy: the trust gate's marks; current: no marks shown (the data as captured)
// Validation, the trust gate and the prompt take the arm's name and apply their own arm rules.
import type { Trust } from '../../runtime/ledger/observation-row.js';
import type { DecodedGates } from '../gates.js';
import type { LoopDeps, LoopOptions } from '../loop-types.js';
import { renderForModel, type ObservationLike } from '../observation-text.js';
import type { Proposal } from '../proposal.js';
import { allTools, retrieveTools, type Retrieval, type RetrievalInput } from '../retrieve.js';
import { TriggerGate } from '../triggers.js';
import { trustGate, type RecordedCall } from '../trust.js';
import { validateCall, type PolicyArm, type PreconditionChecks, type Validation } from '../validate.js';

export type { Trust };

/** The trigger gate as the turn uses it. */
export type Triggers = Pick<TriggerGate, 'onText' | 'onEditCommitted' | 'onModelAction' | 'snapshot'>;

export interface Arm {
  name: PolicyArm;
  /** The toolset offered to the model this turn. */
  retrieve(input: RetrievalInput): Promise<Retrieval>;
  triggers: Triggers;
  /** The trust mark the stream and the prompt's history show for a stored trust value. */
  trustView(trust: Trust): Trust | null;
  /** The trust gate's verdict on one executed call, as stored in its observation row. */
  gate(call: RecordedCall): { trust: Trust; caveat?: string };
  validate(proposal: Proposal, checks: PreconditionChecks): Validation;
  /** An observation row as the model reads it. */
  render(row: ObservationLike): string;
}

type ArmSetup = Pick<LoopDeps, 'embedder'> & { opts: LoopOptions; gates: DecodedGates };

export function armFor(setup: ArmSetup): Arm {
  const { opts, gates } = setup;
  const name = opts.arm;
  const triggerGate = new TriggerGate(
    { reproTarget: opts.reproTarget, symbolCamel: opts.symbolCamel, off: gates.triggersOff },
    opts.resume?.state.triggers,
  );
  const shared = {
    name,
    gate(call: RecordedCall) {
      const gated = trustGate(call, { policy: name, skip: gates.trustSkip });
      return {
        trust: 'trust' in gated ? gated.trust : ('trusted' as const),
        ...('caveat' in gated ? { caveat: gated.caveat } : {}),
      };
    },
    validate: (proposal: Proposal, checks: PreconditionChecks) =>
      validateCall(proposal, checks, { policy: name, evidenceGate: gates.evidenceGate }),
    render: (row: ObservationLike) => renderForModel(row, name),
  };
  return { ...shared, ...STRATEGIES[name](setup, triggerGate) };
}

type Strategy = Pick<Arm, 'retrieve' | 'triggers' | 'trustView'>;

const STRATEGIES: Record<PolicyArm, (setup: ArmSetup, gate: TriggerGate) => Strategy> = {
  policy: ({ opts, gates, embedder }, gate) => ({
    retrieve: gates.retrievalMap
      ? (input) =>
          retrieveTools(input, {
            mode: opts.retrieve ?? 'map',
            embedder,
            mapFallback: gates.retrievalEmbedFallback,
          })
      : () => Promise.resolve(allTools()),
    triggers: gate,
    trustView: (trust) => trust,
  }),
  current: (_setup, gate) => ({
    retrieve: () => Promise.resolve(allTools()),
    triggers: {
      onText: () => [],
      onEditCommitted: () => [],
      onModelAction: () => [],
      snapshot: () => gate.snapshot(),
    },
    trustView: () => null,
  }),
};
