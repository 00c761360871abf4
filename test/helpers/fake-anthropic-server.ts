// A fake Anthropic Messages API for tests, over real HTTP on 127.0.0.1 (ephemeral port). Each
// request gets the next scripted behaviour — a message (text and tool_use blocks, a stop_reason,
// usage), any JSON body, a status with headers (429, 529 "overloaded", 401), a dropped connection
// — and every request is recorded (method, path, headers, body) for assertions.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface RecordedAnthropicRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export class FakeAnthropicServer {
  readonly requests: RecordedAnthropicRequest[] = [];
  private readonly queue: AnthropicBehaviour[] = [];
  private served = 0;
  private readonly server: Server;
  /** e.g. http://127.0.0.1:41234 — what ANTHROPIC_BASE_URL would be (no /v1). Set once listening. */
  baseUrl = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.handle(req.method ?? '', req.url ?? '', req.headers, chunks, res));
    });
  }

  static async start(): Promise<FakeAnthropicServer> {
    const fake = new FakeAnthropicServer();
    await new Promise<void>((resolve, reject) => {
      fake.server.once('error', reject);
      fake.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = fake.server.address() as AddressInfo;
    fake.baseUrl = `http://127.0.0.1:${port}`;
    return fake;
  }

  enqueue(...behaviours: AnthropicBehaviour[]): this {
    this.queue.push(...behaviours);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    res: ServerResponse,
  ): void {
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    this.requests.push({ method, path, headers, body });
    const behaviour = this.queue.shift();
    this.served++;
    if (!behaviour) {
      // 418 is not retryable, so a test that under-scripts fails at once with this reason.
      return send(res, 418, JSON.stringify({ type: 'error', error: { message: 'fake: nothing scripted' } }));
    }
    const named = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
    switch (behaviour.kind) {
      case 'message':
        return send(
          res,
          200,
          JSON.stringify({
            id: `msg_fake_${this.served}`,
            type: 'message',
            role: 'assistant',
            model: behaviour.model ?? (typeof named === 'string' ? named : ''),
            content: behaviour.content.map((block, i) =>
              block.type === 'tool_use' ? { ...block, id: `toolu_${this.served}_${i}` } : block,
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

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}
