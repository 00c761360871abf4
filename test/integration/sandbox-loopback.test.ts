// A sandbox's loopback answers on IPv6 as on IPv4 (/etc/hosts names `::1 localhost`, and Node tries
// ::1 first), and still leads nowhere: the namespace holds lo alone, the host's own ::1 is not reached,
// and an outside IPv6 address has no route. Real engine, real CLI, the base sandbox image.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-loopback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server on the host's ::1 (when the host has IPv6), counting who reaches it. */
async function hostServer(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let count = 0;
  const server = createServer((s) => {
    count++;
    s.destroy();
  });
  const port = await new Promise<number>((resolve) => {
    server.once('error', () => resolve(0));
    server.listen(0, '::1', () => resolve((server.address() as { port: number }).port));
  });
  return { port, connections: () => count, close: () => server.close() };
}

describe('the sandbox loopback', () => {
  it('serves ::1 inside the sandbox; the host and the outside stay out of reach', async () => {
    const host = await hostServer();
    const code = [
      'import os, socket',
      'print("links", sorted(os.listdir("/sys/class/net")))',
      'print("routes", sorted({l.split()[-1] for l in open("/proc/net/ipv6_route")}))',
      's = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); s.listen()',
      'c = socket.create_connection(("localhost", s.getsockname()[1]), timeout=2)',
      'print("own", c.getpeername()[0])',
      `for addr in [("::1", ${host.port || 9}), ("2001:db8::1", 80)]:`,
      '    try:',
      '        socket.create_connection(addr, timeout=2); print("reached", addr[0])',
      '    except OSError as e:',
      '        print("refused", addr[0], e.errno)',
    ].join('\n');
    const r = await runCli(
      ['execute', '--repo', dir, '--ledger', join(dir, 'l.db'), '--env', 'base', '--json', '--code', code],
      { env: { CI: 'true' } },
    );
    host.close();
    expect(r.code, r.stderr).toBe(0);
    const out = (JSON.parse(r.stdout) as { stdout: string }).stdout;
    expect(out).toContain("links ['lo']");
    expect(out).toContain("routes ['lo']");
    expect(out).toMatch(/^own (::1|127\.0\.0\.1)$/m);
    // Refused on the sandbox's own ::1 (ECONNREFUSED), no route outward (ENETUNREACH).
    expect(out).toContain('refused ::1 111');
    expect(out).toContain('refused 2001:db8::1 101');
    expect(out).not.toContain('reached');
    expect(host.connections()).toBe(0);
  });
});
