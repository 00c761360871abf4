// The sandbox runtime option against the real engine and the real CLI (gVisor `runsc`
// as the stronger option where the engine offers it). This engine has no runsc, so asking for it
// must fail before any container, with the runtimes the engine does offer; asking for one it has
// (runc) puts HostConfig.Runtime on the container; doctor names what the engine offers. Every
// request the CLI makes goes through a recording proxy in front of the engine, so "no container
// was created" is read from the traffic itself, not inferred from what is left afterwards.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineEndpoint } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';

/** A TCP proxy to the engine that keeps every byte the client sent. */
class RecordingProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly log: { sent: string },
  ) {}

  static async start(): Promise<RecordingProxy> {
    const target = engineEndpoint();
    const connect = (): Socket => {
      // Half-open both ways: the attach stream's stdin ends while its output still flows back.
      if (target.startsWith('unix://'))
        return createConnection({ path: target.slice('unix://'.length), allowHalfOpen: true });
      const url = new URL(target.replace(/^tcp:/, 'http:'));
      return createConnection({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    };
    const log = { sent: '' };
    const server = createServer({ allowHalfOpen: true }, (client) => {
      const engine = connect();
      client.on('data', (chunk: Buffer) => {
        log.sent += chunk.toString('latin1');
      });
      client.pipe(engine).pipe(client);
      client.on('error', () => engine.destroy());
      engine.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    return new RecordingProxy(server, address.port, log);
  }

  get dockerHost(): string {
    return `tcp://127.0.0.1:${this.port}`;
  }

  /** `METHOD /path` of every request so far (API version prefix removed), and clears the record. */
  take(): { requests: string[]; text: string } {
    const text = this.log.sent;
    this.log.sent = '';
    const requests = [...text.matchAll(/^(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r$/gm)].map(
      (m) => `${m[1]} ${m[2]!.replace(/^\/v[0-9.]+/, '').replace(/\?.*$/, '')}`,
    );
    return { requests, text };
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The JSON body of the first request whose request line matches (by its Content-Length). */
function requestBody(text: string, line: RegExp): unknown {
  const start = text.search(line);
  if (start < 0) throw new Error('no such request');
  const headersEnd = text.indexOf('\r\n\r\n', start);
  const length = Number(/^content-length: *(\d+)\r$/im.exec(text.slice(start, headersEnd))?.[1]);
  return JSON.parse(text.slice(headersEnd + 4, headersEnd + 4 + length));
}

let proxy: RecordingProxy;
const dir = mkdtempSync(join(tmpdir(), 'piper-runtime-'));
const xdg = join(dir, 'xdg');

/** The CLI's environment: the engine behind the proxy, nothing of the machine's piper settings. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...process.env,
    DOCKER_HOST: proxy.dockerHost,
    XDG_CONFIG_HOME: xdg,
    CI: 'true',
  };
  delete out.DOCKER_TLS_VERIFY;
  for (const name of Object.keys(out)) if (/^(PIPER_|OPENAI_)/.test(name)) delete out[name];
  return { ...out, ...extra };
}

beforeAll(async () => {
  proxy = await RecordingProxy.start();
});

afterAll(async () => {
  await proxy.close();
});

const NOT_OFFERED =
  /^piper-agent: the sandbox runtime runsc is not offered by the engine \(it offers: ([^;]+); default (\S+)\)$/m;

describe('PIPER_SANDBOX_RUNTIME on an engine without gVisor', () => {
  it('refuses runsc before any container, naming the runtimes the engine has (exit 2)', async () => {
    proxy.take();
    const r = await runCli(
      ['execute', '--repo', dir, '--ledger', join(dir, 'l.db'), '--env', 'base', '--code', 'print(1)'],
      { env: env({ PIPER_SANDBOX_RUNTIME: 'runsc' }) },
    );
    const { requests } = proxy.take();
    expect(r.code).toBe(2);
    const said = r.stderr.match(NOT_OFFERED);
    expect(said, r.stderr).not.toBeNull();
    expect(said![1]!.split(', ')).toContain('runc');
    expect(r.stderr).toContain('fix: install gVisor and register it with the engine');
    expect(r.stdout).toBe('');
    expect(requests).toContain('GET /info');
    expect(requests.filter((q) => q.startsWith('POST /containers'))).toEqual([]);
  });

  it('fix refuses it too when it comes from the user config key sandboxRuntime', async () => {
    mkdirSync(join(xdg, 'piper-agent'), { recursive: true });
    writeFileSync(join(xdg, 'piper-agent', 'config.json'), JSON.stringify({ sandboxRuntime: 'runsc' }));
    try {
      const repo = sampleRepo();
      proxy.take();
      const r = await runCli(
        [
          'fix',
          '--repo',
          repo,
          '--model',
          `script:${join(MODELS, 'sample-fix.jsonl')}`,
          'top_words is off by one',
        ],
        { env: env() },
      );
      const { requests } = proxy.take();
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(NOT_OFFERED);
      expect(requests.filter((q) => q.startsWith('POST /containers'))).toEqual([]);
    } finally {
      writeFileSync(join(xdg, 'piper-agent', 'config.json'), '{}');
    }
  });

  it('a runtime the engine offers is set on the container (HostConfig.Runtime)', async () => {
    proxy.take();
    const r = await runCli(
      [
        'execute',
        '--repo',
        dir,
        '--ledger',
        join(dir, 'l.db'),
        '--env',
        'base',
        '--json',
        '--code',
        'print(6 * 7)',
      ],
      { env: env({ PIPER_SANDBOX_RUNTIME: 'runc' }) },
    );
    const { requests, text } = proxy.take();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ exit_code: 0, stdout: '42\n' });
    expect(requests.filter((q) => q === 'POST /containers/create')).toHaveLength(1);
    const create = requestBody(text, /^POST \S*\/containers\/create\S* HTTP/m) as {
      HostConfig: { Runtime?: string; NetworkMode: string };
    };
    expect(create.HostConfig).toMatchObject({ Runtime: 'runc', NetworkMode: 'none' });
  });
});

describe('piper-agent doctor', () => {
  it('names the runtimes the engine offers and the one sandboxes use', async () => {
    const r = await runCli(['doctor', '--repo', dir, '--ledger', join(dir, 'l.db')], { env: env() });
    expect(r.stdout).toMatch(
      /^ok +runtime sandboxes use runc \(the engine's default\); the engine offers [^\n]*\brunc\b/m,
    );
    const json = await runCli(['doctor', '--json', '--repo', dir, '--ledger', join(dir, 'l.db')], {
      env: env({ PIPER_SANDBOX_RUNTIME: 'runsc' }),
    });
    const check = (
      JSON.parse(json.stdout) as {
        checks: Array<{
          name: string;
          ok: boolean;
          runtimes?: { offered: string[]; sandboxes: string | null };
        }>;
      }
    ).checks.find((c) => c.name === 'runtime');
    expect(check).toMatchObject({ ok: false, runtimes: { sandboxes: null } });
    expect(check!.runtimes!.offered).toContain('runc');
  });
});
