// The model of a replay: the run's recorded replies (turns.raw_output, in order) played back by a
// script model. Unlike scriptModelFromReplies (which estimates usage), each reply carries the token
// usage its turn recorded, so token caps fall where they fell. Plain replies are played verbatim; a
// native function-calling reply was recorded as {"content", "tool_calls"} and is played back as the
// tool calls it was.
import { ScriptModel, type ScriptEntry } from '../../runtime/model/script-model.js';
import type { Protocol, ToolCall } from '../../runtime/model/types.js';
import type { RunDocument } from './run-document.js';

export function replayModel(doc: RunDocument): ScriptModel {
  const turns = doc.turns.filter((t) => t.idx !== null && t.raw_output !== null);
  // Both speak native tools, so their replies were recorded as tool-call envelopes.
  const recordedTools = /^(openai-tools|anthropic):/.test(doc.run.model ?? '');
  const canCarryCalls = recordedTools || (doc.run.model ?? '').startsWith('script:');
  const entries: ScriptEntry[] = turns.map((t) => {
    const raw = t.raw_output!;
    const usage =
      t.prompt_tokens === null
        ? null
        : { promptTokens: t.prompt_tokens, completionTokens: t.completion_tokens ?? 0 };
    const calls = canCarryCalls ? toolCallEnvelope(raw) : null;
    return calls
      ? { text: calls.content, toolCalls: calls.toolCalls, usage, raw }
      : { text: raw, toolCalls: [], usage, raw };
  });
  const protocol: Protocol = recordedTools || entries.some((e) => e.toolCalls.length > 0) ? 'tools' : 'json';
  return new ScriptModel(entries, { id: `replay:${doc.run.id}`, protocol });
}

/** `{"content": ..., "tool_calls": [{name, arguments}]}` as policy/loop.ts records a tool-call reply. */
function toolCallEnvelope(raw: string): { content: string | null; toolCalls: ToolCall[] } | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).sort().join(',');
  if (keys !== 'content,tool_calls' || !Array.isArray(o.tool_calls) || o.tool_calls.length === 0) return null;
  const toolCalls: ToolCall[] = [];
  for (const c of o.tool_calls as Array<Record<string, unknown>>) {
    if (typeof c?.name !== 'string' || typeof c.arguments !== 'string') return null;
    toolCalls.push({ name: c.name, arguments: c.arguments });
  }
  return { content: typeof o.content === 'string' ? o.content : null, toolCalls };
}
