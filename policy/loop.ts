// The agent loop (DESIGN.md section 2; spec sections 3–6): observe → triggers → retrieve → select →
// validate → execute → trust gate → observe, one call per turn. The model and every effect are
// injected; the stages between the model call and the tool are deterministic. Every proposal ends
// in exactly one terminal ledger record: executed, rejected, no-op, or a reserved outcome.
import type { Attempt, ChatReply } from '../runtime/model/types.js';
import { capReached } from './caps.js';
import type { LoopEvent, Outcome, RunResult } from './events.js';
import { gateOn } from './gates.js';
import type { ExecutedLike, LoopDeps, LoopOptions, ObservationRowLike } from './loop-types.js';
import { renderForModel, summarize } from './observation-text.js';
import { failuresField } from './test-failures.js';
import { buildSelectionPrompt, SELECTION_SAMPLING, type LedgerEntry } from './prompt.js';
import { parseReply } from './proposal.js';
import type { ToolName } from './registry.js';
import { allTools, retrieveTools } from './retrieve.js';
import { TriggerGate, type TriggerCall, type TriggerName } from './triggers.js';
import { trustGate, type TrustSkip } from './trust.js';
import { classifyProposal, validateCall } from './validate.js';

export type { ExecutedLike, LoopDeps, LoopOptions, LoopRecord, LoopState, LoopTools } from './loop-types.js';

export const EXIT_CODES: Record<Outcome, number> = { resolved: 0, error: 1, ask_user: 3, stop: 4, cap: 4 };
const HISTORY = 20;

export async function runLoop(deps: LoopDeps, opts: LoopOptions): Promise<RunResult> {
  const { model, tools, record } = deps;
  const arm = opts.arm;
  const clock = deps.clock ?? Date.now;
  const started = clock();
  const on = (name: Parameters<typeof gateOn>[1]) => gateOn(opts.gates, name);
  const triggersOff = (['post_edit_lint', 'post_patch_test', 'symbol_token'] as const).filter(
    (t: TriggerName) => !on(`trigger_${t}`),
  );
  const trustSkip: TrustSkip[] = !on('trust_gate')
    ? ['all']
    : !on('trust_round_trip_search_symbol')
      ? ['search_symbol_round_trip']
      : [];
  const gate = new TriggerGate(
    { reproTarget: opts.reproTarget, symbolCamel: opts.symbolCamel, off: triggersOff },
    opts.resume?.state.triggers,
  );
  let turns = opts.resume?.state.turnsUsed ?? 0;
  let latest: string | null = null;
  const emit = (event: LoopEvent) => deps.emit(event);

  const finish = (outcome: Outcome, reason: string, question?: string): RunResult => {
    const verified = record.verified(opts.reproTarget);
    const final: Outcome = outcome === 'stop' && verified ? 'resolved' : outcome;
    record.saveState({ turnsUsed: turns, triggers: gate.snapshot() });
    record.end(final, reason);
    const totals = record.totals();
    const result: RunResult = {
      run_id: record.runId,
      outcome: final,
      reason,
      verified,
      // Never 0 for an unverified fix: "resolved" already implies a verified repro test.
      exit_code: EXIT_CODES[final],
      ...(question !== undefined ? { question } : {}),
      turns,
      tokens: totals.tokens,
      cost_usd: totals.costUsd,
      diff: record.diff(),
    };
    emit({ type: 'result', ...result });
    return result;
  };

  /** Records the gated observation of an executed call and tells the stream. */
  const observeExecuted = (
    turn: number,
    turnId: number | undefined,
    tool: string,
    args: Record<string, unknown>,
    exec: ExecutedLike,
    stored: unknown,
  ) => {
    const gated =
      tool === 'lint' || exec.kind === 'denied'
        ? { ok: true as const, trust: 'trusted' as const, data: exec.result }
        : trustGate(
            { tool: tool as ToolName, args, result: exec.result, receipt: exec.receipt },
            { policy: arm, skip: trustSkip },
          );
    const trust = 'trust' in gated ? gated.trust : 'trusted';
    const caveat = 'caveat' in gated ? gated.caveat : undefined;
    const row = record.observe({
      turnId,
      callId: exec.callId,
      kind: exec.kind,
      target: exec.target,
      result: stored,
      trust,
      caveat,
    });
    emit({
      type: 'observation',
      turn,
      call_id: exec.callId,
      kind: exec.kind,
      target: exec.target,
      trust: arm === 'current' ? null : trust,
      ...(caveat ? { caveat } : {}),
      summary: summarize(exec.kind, exec.result),
      ...failuresField(exec.kind, exec.result),
    });
    return row;
  };

  const execute = async (
    turn: number,
    turnId: number | undefined,
    tool: string,
    args: Record<string, unknown>,
    origin: 'model' | 'trigger',
    trigger?: TriggerCall,
  ): Promise<{ exec: ExecutedLike; row: ObservationRowLike }> => {
    let started = false; // `started` carries the call id the ledger row has, once it exists
    const onDispatched = (callId: string) => {
      if (!started) emit({ type: 'execution', phase: 'started', turn, call_id: callId, tool, origin });
      started = true;
    };
    const t0 = clock();
    const exec =
      tool === 'lint'
        ? await tools.lintFile(String(args.selector), String(args.path), turnId, onDispatched)
        : await tools.run({ tool: tool as ToolName, args }, origin, turnId, onDispatched);
    onDispatched(exec.callId); // tools that do not call the hook (a test's wrapper): still before finished
    emit({
      type: 'execution',
      phase: 'finished',
      turn,
      call_id: exec.callId,
      tool,
      origin,
      exit_code: exec.receipt?.exit_code ?? null,
      timed_out: exec.receipt?.timed_out ?? false,
      ms: clock() - t0,
    });
    // The spec's trigger observation shapes: test → {passed, exit_code}; symbol → {query, matches}.
    let stored = exec.result;
    if (exec.kind === 'denied') {
      // The authorization stage refused it: the harness's own record, not the tool's result.
      stored = { denied: true, reason: (exec.result as { error: string }).error };
    } else if (trigger?.trigger === 'post_patch_test') {
      const r = exec.result as { passed: boolean; exit_code: number };
      stored = { passed: r.passed, exit_code: r.exit_code };
    } else if (trigger?.trigger === 'symbol_token') {
      stored = {
        query: args.query,
        matches: (exec.result as { data?: { matches?: unknown[] } }).data?.matches ?? [],
      };
    }
    const row = observeExecuted(turn, turnId, tool, args, exec, stored);
    return { exec, row };
  };

  const runTriggers = async (calls: TriggerCall[], turn: number, turnId?: number) => {
    for (const t of calls) {
      emit({ type: 'proposal', turn, tool: t.tool, args: t.args, origin: 'trigger', trigger: t.trigger });
      const { exec } = await execute(turn, turnId, t.tool, t.args, 'trigger', t);
      if (exec.edit) await runTriggers(gate.onEditCommitted(exec.edit), turn, turnId);
    }
  };

  const history = (): LedgerEntry[] =>
    record.recent(HISTORY).map((o) => ({
      kind: o.kind,
      target: o.target ?? '',
      result: JSON.parse(o.result) as unknown,
      trust: arm === 'current' ? null : o.trust,
      caveat: o.caveat,
    }));

  try {
    const lastRow = record.recent(1)[0];
    if (lastRow) latest = renderForModel(lastRow, arm);
    if (opts.resume?.answer !== undefined) {
      const row = record.observe({
        kind: 'user',
        target: '',
        result: { answer: opts.resume.answer },
        trust: 'trusted',
      });
      emit({ type: 'answer', turn: turns, answer: opts.resume.answer });
      latest = renderForModel(row, arm);
    } else if (!opts.resume && arm === 'policy') {
      await runTriggers(gate.onText(opts.issueText), 0);
    }

    for (;;) {
      const totals = record.totals();
      const cap = capReached(opts.budget, {
        turns,
        tokens: totals.tokens,
        costUsd: totals.costUsd,
        wallS: (clock() - started) / 1000,
      });
      if (cap) return finish('cap', cap);
      const turn = turns + 1;
      emit({ type: 'turn', turn });
      const retrieval =
        arm === 'policy' && on('retrieval_map')
          ? await retrieveTools(
              { issueText: opts.issueText, latestObservation: latest ?? '' },
              {
                mode: opts.retrieve ?? 'map',
                embedder: deps.embedder,
                mapFallback: on('retrieval_embed_fallback'),
              },
            )
          : allTools();
      emit({
        type: 'toolset',
        turn,
        tools: retrieval.tools,
        truncated: retrieval.truncated,
        source: retrieval.source,
      });

      for (let attempt = 0; attempt < 2; attempt++) {
        const prompt = buildSelectionPrompt({
          arm,
          protocol: model.protocol,
          tools: retrieval.tools,
          history: history(),
          latestObservation: latest,
          issueText: opts.issueText,
          boundary: record.promptBoundary,
        });
        const turnId = record.startTurn({
          toolset: retrieval.tools,
          promptDigest: prompt.digest,
          promptTokens: prompt.tokens,
          messages: prompt.messages,
          tools: prompt.tools,
        });
        let reply: ChatReply;
        try {
          reply = await model.complete(
            {
              messages: prompt.messages,
              ...(prompt.tools ? { tools: prompt.tools } : {}),
              temperature: (opts.sampling ?? SELECTION_SAMPLING).temperature,
              maxTokens: (opts.sampling ?? SELECTION_SAMPLING).maxTokens,
            },
            deps.signal,
          );
        } catch (error) {
          const attempts = (error as { attempts?: Attempt[] }).attempts ?? [];
          record.completeTurn(turnId, {
            rawOutput: null,
            action: { error: (error as Error).message, attempts },
            promptTokens: prompt.tokens,
            completionTokens: 0,
            attempts,
          });
          turns = turn;
          return finish('error', `model call failed: ${(error as Error).message}`);
        }
        record.usage(reply.usage.promptTokens, reply.usage.completionTokens, reply.costUsd);
        const spent = record.totals();
        emit({
          type: 'usage',
          turn,
          tokens_in: reply.usage.promptTokens,
          tokens_out: reply.usage.completionTokens,
          cost_usd: reply.costUsd,
          total_tokens: spent.tokens,
          total_cost_usd: spent.costUsd,
        });
        const raw = reply.toolCalls.length
          ? JSON.stringify({ content: reply.text, tool_calls: reply.toolCalls })
          : reply.text;
        const parsed = parseReply(reply, model.protocol, (opts.sampling ?? SELECTION_SAMPLING).maxTokens);
        if (!parsed.ok) {
          record.completeTurn(turnId, {
            rawOutput: raw,
            action: null,
            promptTokens: reply.usage.promptTokens,
            completionTokens: reply.usage.completionTokens,
            attempts: reply.attempts,
          });
          const row = record.observe({
            turnId,
            kind: 'noop',
            target: '',
            result: { noop: true, reason: parsed.reason },
            trust: 'trusted',
          });
          emit({ type: 'noop', turn, reason: parsed.reason });
          latest = renderForModel(row, arm);
          break;
        }
        record.completeTurn(turnId, {
          rawOutput: raw,
          action: parsed.proposal,
          promptTokens: reply.usage.promptTokens,
          completionTokens: reply.usage.completionTokens,
          attempts: reply.attempts,
        });
        const classified = classifyProposal(parsed.proposal);
        emit({
          type: 'proposal',
          turn,
          tool: parsed.proposal.tool,
          args: parsed.proposal.args,
          origin: 'model',
          ...(reply.toolCalls.length > 0 && reply.text?.trim() ? { text: reply.text.trim() } : {}),
        });

        if (classified.kind === 'ask_user' || classified.kind === 'stop') {
          if (arm === 'policy')
            await runTriggers(gate.onModelAction({ kind: classified.kind }), turn, turnId);
          turns = turn;
          if (classified.kind === 'stop') {
            record.observe({
              turnId,
              kind: 'stop',
              target: '',
              result: { reason: classified.reason },
              trust: 'trusted',
            });
            return finish('stop', classified.reason || 'the model stopped');
          }
          record.observe({
            turnId,
            kind: 'ask_user',
            target: '',
            result: { question: classified.question },
            trust: 'trusted',
          });
          emit({ type: 'ask_user', turn, question: classified.question });
          const answer = deps.askUser ? await deps.askUser(classified.question) : null;
          if (answer === null)
            return finish('ask_user', 'the model asked the operator a question', classified.question);
          const row = record.observe({
            turnId,
            kind: 'user',
            target: '',
            result: { answer },
            trust: 'trusted',
          });
          emit({ type: 'answer', turn, answer });
          latest = renderForModel(row, arm);
          break;
        }

        const validation = validateCall(
          parsed.proposal,
          { selectorExists: (s) => tools.selectorExists(s), hasEvidence: (s) => tools.hasEvidence(s) },
          { policy: arm, evidenceGate: on('evidence_gate') },
        );
        if (!validation.ok) {
          const { rejection } = validation;
          const callId = record.rejected({
            tool: rejection.tool,
            args: parsed.proposal.args,
            reason: rejection.reason,
            origin: 'model',
            turnId,
          });
          const row = record.observe({
            turnId,
            callId,
            kind: 'rejected',
            target: rejection.tool,
            result: rejection,
            trust: 'trusted',
          });
          emit({
            type: 'rejection',
            turn,
            tool: rejection.tool,
            reason: rejection.reason,
            reselect: attempt === 0,
          });
          latest = renderForModel(row, arm);
          continue; // one re-selection on the same turn; a second rejection consumes the turn
        }

        const { call } = validation;
        if (arm === 'policy')
          await runTriggers(gate.onModelAction({ kind: 'call', tool: call.tool }), turn, turnId);
        const { exec, row } = await execute(
          turn,
          turnId,
          call.tool,
          call.args as Record<string, unknown>,
          'model',
        );
        latest = renderForModel(row, arm);
        // A denied call advances no trigger: nothing happened to the repository.
        if (arm === 'policy' && exec.kind !== 'denied') {
          if (exec.edit) await runTriggers(gate.onEditCommitted(exec.edit), turn, turnId);
          await runTriggers(gate.onText(latest), turn, turnId);
        }
        break;
      }
      turns = turn;
    }
  } catch (error) {
    return finish('error', (error as Error).message);
  }
}
