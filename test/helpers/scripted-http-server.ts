// What the fake model servers share: real HTTP on 127.0.0.1 (ephemeral port), a queue of scripted
// behaviours answered one per request, and every request recorded (method, path, headers, body) for
// assertions. Each fake only says how one behaviour is answered in its API's words.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

/** The request a behaviour answers. */
export interface ScriptedRequest {
  /** The body's `model`, '' when it names none. */
  model: string;
  /** 1-based number of the request. */
  n: number;
}

export abstract class ScriptedHttpServer<B> {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: B[] = [];
  private served = 0;
  private readonly server: Server;
  /** The API root tests point the client at. Set once listening. */
  baseUrl = '';

  protected constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.handle(req.method ?? '', req.url ?? '', req.headers, chunks, res));
    });
  }

  /** Listens on 127.0.0.1; `basePath` is what the API root adds to the address (e.g. `/v1`). */
  protected async listen(basePath: string): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}${basePath}`;
    return this;
  }

  enqueue(...behaviours: B[]): this {
    this.queue.push(...behaviours);
    return this;
  }

  /** Behaviours not yet served. */
  get pending(): number {
    return this.queue.length;
  }

  /** Stops listening and cuts every open connection, hanging ones included. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answers one request with its scripted behaviour (undefined: the script ran out). */
  protected abstract respond(behaviour: B | undefined, request: ScriptedRequest, res: ServerResponse): void;

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
    const named = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
    this.respond(
      this.queue.shift(),
      { model: typeof named === 'string' ? named : '', n: ++this.served },
      res,
    );
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}
