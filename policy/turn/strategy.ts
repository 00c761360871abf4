// The run's settings (loop-settings.ts) as the turn uses them, built once when the run starts so
// no stage re-reads a setting or asks which loop it runs:
//   retrieve   the retrieved toolset, or all six
//   triggers   the trigger gate, or a silent one that keeps the gate's memory for resume
//   trustView  the trust mark the stream and the prompt's history show for a stored value
//   gate       the trust gate's verdict on one executed call, with its skips
//   validate   validation with or without the evidence gate
//   render     an observation row as the model reads it
import type { Trust } from '../../runtime/ledger/observation-row.js';
import type { LoopDeps, LoopOptions } from '../loop-types.js';
import type { LoopSettings } from '../loop-settings.js';
import { renderForModel, type ObservationLike } from '../observation-text.js';
import type { Proposal } from '../proposal.js';
import { allTools, retrieveTools, type Retrieval, type RetrievalInput } from '../retrieve.js';
import { TriggerGate } from '../triggers.js';
import { trustGate, type RecordedCall } from '../trust.js';
import { validateCall, type PreconditionChecks, type Validation } from '../validate.js';

export type { Trust };

/** The trigger gate as the turn uses it. */
export type Triggers = Pick<TriggerGate, 'onText' | 'onEditCommitted' | 'onModelAction' | 'snapshot'>;

export interface LoopStrategy {
  settings: LoopSettings;
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

type StrategySetup = Pick<LoopDeps, 'embedder'> & { opts: LoopOptions };

export function strategyFor({ opts, embedder }: StrategySetup): LoopStrategy {
  const settings = opts.settings;
  const triggerGate = new TriggerGate(
    { reproTarget: opts.reproTarget, symbolCamel: opts.symbolCamel, off: settings.triggersOff },
    opts.resume?.state.triggers,
  );
  return {
    settings,
    retrieve:
      settings.toolset === 'retrieved'
        ? (input) =>
            retrieveTools(input, {
              mode: opts.retrieve ?? 'map',
              embedder,
              mapFallback: settings.embedFallback,
            })
        : () => Promise.resolve(allTools()),
    triggers: settings.triggers === 'on' ? triggerGate : silent(triggerGate),
    trustView: settings.trustMarks ? (trust) => trust : () => null,
    gate(call: RecordedCall) {
      const gated = trustGate(call, { skip: settings.trustSkip });
      return { trust: gated.trust, ...('caveat' in gated ? { caveat: gated.caveat } : {}) };
    },
    validate: (proposal, checks) => validateCall(proposal, checks, { evidenceGate: settings.evidenceGate }),
    render: (row) => renderForModel(row, settings),
  };
}

/** No trigger fires; the gate's memory (its snapshot) is still saved with the run's state. */
function silent(gate: TriggerGate): Triggers {
  return {
    onText: () => [],
    onEditCommitted: () => [],
    onModelAction: () => [],
    snapshot: () => gate.snapshot(),
  };
}
