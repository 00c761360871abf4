// A fake Anthropic Messages API for tests, over real HTTP on 127.0.0.1 (ephemeral port). Each
// request gets the next scripted behaviour — a message (text and tool_use blocks, a stop_reason,
// usage), any JSON body, a status with headers (429, 529 "overloaded", 401), a dropped connection
// — and every request is recorded (method, path, headers, body) for assertions.
import type { ServerResponse } from 'node:http';
import { ScriptedHttpServer, sendJson as send, type ScriptedRequest } from './scripted-http-server.js';

export type AnthropicBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown };

export type AnthropicBehaviour =
  | {
      kind: 'message';
      content: AnthropicBlock[];
      stopReason?: 'end_turn' | 'max_tokens' | 'tool_use' | 'stop_sequence';
      usage?: { input_tokens: number; output_tokens: number };
      model?: string;
    }
  | { kind: 'json'; body: unknown }
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'drop' };

export const anthropic = {
  toolUse: (name: string, input: unknown, text?: string): AnthropicBehaviour => ({
    kind: 'message',
    content: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_use', name, input }],
    stopReason: 'tool_use',
  }),
  text: (text: string, stopReason: 'end_turn' | 'max_tokens' = 'end_turn'): AnthropicBehaviour => ({
    kind: 'message',
    content: [{ type: 'text', text }],
    stopReason,
  }),
  error: (status: number, type: string, headers: Record<string, string> = {}): AnthropicBehaviour => ({
    kind: 'status',
    status,
    body: JSON.stringify({ type: 'error', error: { type, message: `${type} (fake)` } }),
    headers,
  }),
  models: (...ids: string[]): AnthropicBehaviour => ({
    kind: 'json',
    body: { data: ids.map((id) => ({ type: 'model', id, display_name: id })), has_more: false },
  }),
};

export class FakeAnthropicServer extends ScriptedHttpServer<AnthropicBehaviour> {
  /** baseUrl is e.g. http://127.0.0.1:41234 — what ANTHROPIC_BASE_URL would be (no /v1). */
  static start(): Promise<FakeAnthropicServer> {
    return new FakeAnthropicServer().listen('');
  }

  protected respond(
    behaviour: AnthropicBehaviour | undefined,
    { model, n }: ScriptedRequest,
    res: ServerResponse,
  ): void {
    if (!behaviour) {
      // 418 is not retryable, so a test that under-scripts fails at once with this reason.
      return send(res, 418, JSON.stringify({ type: 'error', error: { message: 'fake: nothing scripted' } }));
    }
    switch (behaviour.kind) {
      case 'message':
        return send(
          res,
          200,
          JSON.stringify({
            id: `msg_fake_${n}`,
            type: 'message',
            role: 'assistant',
            model: behaviour.model ?? model,
            content: behaviour.content.map((block, i) =>
              block.type === 'tool_use' ? { ...block, id: `toolu_${n}_${i}` } : block,
            ),
            stop_reason: behaviour.stopReason ?? 'end_turn',
            stop_sequence: null,
            usage: behaviour.usage ?? { input_tokens: 13, output_tokens: 5 },
          }),
        );
      case 'json':
        return send(res, 200, JSON.stringify(behaviour.body));
      case 'status':
        return send(res, behaviour.status, behaviour.body ?? '', behaviour.headers);
      case 'drop':
        res.socket?.destroy();
        return;
    }
  }
}
