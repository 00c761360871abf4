// Selection: the prompt from the ledger's recent rows and the latest observation, one model call,
// and the reply parsed into one proposal. Each selection is one turn row, completed with the raw
// reply and the parsed action (or the call's failure) before anything acts on it.
import type { Attempt, ChatReply } from '../../runtime/model/types.js';
import { buildSelectionPrompt, HISTORY_ENTRIES, type LedgerEntry, SELECTION_SAMPLING } from '../prompt.js';
import { parseReply, type Proposal, proposalSchema } from '../proposal.js';
import type { ToolName } from '../registry.js';
import { stopIfAborted, type TurnContext } from './context.js';
import { z } from 'zod';

export type Selection =
  | { kind: 'failed'; message: string }
  | { kind: 'noop'; turnId: number; reason: string }
  | { kind: 'proposal'; turnId: number; proposal: Proposal; text?: string };

export async function select(ctx: TurnContext, turn: number, toolset: ToolName[]): Promise<Selection> {
  const { model, record } = ctx.deps;
  stopIfAborted(ctx);
  const prompt = buildSelectionPrompt({
    loop: ctx.strategy.settings,
    protocol: model.protocol,
    tools: toolset,
    history: history(ctx),
    latestObservation: ctx.latest,
    issueText: ctx.opts.issueText,
    boundary: record.promptBoundary,
    language: ctx.opts.language,
  });
  const turnId = record.startTurn({
    toolset,
    promptDigest: prompt.digest,
    promptTokens: prompt.tokens,
    messages: prompt.messages,
    tools: prompt.tools,
  });
  const sampling = ctx.opts.sampling ?? SELECTION_SAMPLING;
  let reply: ChatReply;
  try {
    reply = await model.complete(
      {
        messages: prompt.messages,
        ...(prompt.tools ? { tools: prompt.tools } : {}),
        temperature: sampling.temperature,
        maxTokens: sampling.maxTokens,
      },
      ctx.deps.signal,
    );
  } catch (error) {
    stopIfAborted(ctx); // a call cut short by the stop is the stop, not a failed turn
    return failedCall(ctx, turnId, prompt.tokens, error);
  }
  stopIfAborted(ctx);
  ctx.journal.usage(turn, reply);
  const parsed = parseReply(reply, model.protocol, sampling.maxTokens);
  record.completeTurn(turnId, {
    rawOutput: reply.toolCalls.length
      ? JSON.stringify({ content: reply.text, tool_calls: reply.toolCalls })
      : reply.text,
    action: parsed.ok ? parsed.proposal : null,
    promptTokens: reply.usage.promptTokens,
    completionTokens: reply.usage.completionTokens,
    attempts: reply.attempts,
  });
  // The model's words beside a native tool call (in the JSON protocol the text is the proposal).
  const text = reply.toolCalls.length > 0 ? reply.text?.trim() : undefined;
  return parsed.ok
    ? { kind: 'proposal', turnId, proposal: parsed.proposal, ...(text ? { text } : {}) }
    : { kind: 'noop', turnId, reason: parsed.reason };
}

/** A model call that failed (after its retries): the turn row completes with the error, no action. */
function failedCall(ctx: TurnContext, turnId: number, promptTokens: number, error: unknown): Selection {
  const { message } = error as Error;
  const attempts = attemptsOf(error);
  ctx.deps.record.completeTurn(turnId, {
    rawOutput: null,
    action: { error: message, attempts } satisfies FailedModelCall,
    promptTokens,
    completionTokens: 0,
    attempts,
  });
  return { kind: 'failed', message };
}

/** The prompt's history: the ledger's latest observations, with the trust marks the run shows. */
function history(ctx: TurnContext): LedgerEntry[] {
  return ctx.deps.record.recent(HISTORY_ENTRIES).map((o) => ({
    kind: o.kind,
    target: o.target ?? '',
    result: JSON.parse(o.result) as unknown,
    trust: ctx.strategy.trustView(o.trust),
    caveat: o.caveat,
  }));
}

/** A failed model call's HTTP attempts, when the error carries them (the model clients' errors do). */
function attemptsOf(error: unknown): Attempt[] {
  if (typeof error !== 'object' || error === null || !('attempts' in error)) return [];
  return Array.isArray(error.attempts) ? (error.attempts as Attempt[]) : [];
}

// ---- a turn row's action ---------------------------------------------------------------------------
// What a turn row's `action` holds, declared once: the model's proposal as parsed (proposal.ts), or,
// when the model call itself failed, the failure and its HTTP attempts; null for a no-op turn.
// select() writes it; `ledger show`, `replay` and the A/B facts read it back through these schemas.
const failedModelCallSchema = z.object({
  error: z.string(),
  attempts: z.array(z.custom<Attempt>((value) => typeof value === 'object' && value !== null)),
});
type FailedModelCall = z.output<typeof failedModelCallSchema>;

/** A failed call as the readers need it (its message), whatever its attempts hold. */
export const failedModelCallErrorSchema = failedModelCallSchema.pick({ error: true });

/** The tool a proposal named: all the A/B's decision count reads. */
export const proposedToolSchema = proposalSchema.pick({ tool: true });

export { proposalSchema };
