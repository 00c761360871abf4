// A front for a local index (127.0.0.1 only) that stalls the requests a test chooses: it reads
// each connection's request line and, when `stall(line, n)` says so for the n-th time that line
// is seen, takes the connection and never answers it; every other connection goes through to the
// index unchanged. What an index under load or a slow proxy does to one attempt of pip's.
import { connect, createServer, type Socket } from 'node:net';

export interface StallingFront {
  url: string;
  /** The request lines stalled, in order. */
  stalled: string[];
  close(): Promise<void>;
}

export async function stallingFront(
  backendPort: number,
  stall: (requestLine: string, n: number) => boolean,
): Promise<StallingFront> {
  const held: Socket[] = [];
  const stalled: string[] = [];
  const seen = new Map<string, number>();
  const server = createServer((client) => {
    held.push(client);
    client.on('error', () => undefined);
    client.once('data', (first: Buffer) => {
      const line = first.toString('latin1').split('\r\n')[0] ?? '';
      const n = (seen.get(line) ?? 0) + 1;
      seen.set(line, n);
      if (stall(line, n)) {
        stalled.push(line);
        return;
      }
      const upstream = connect(backendPort, '127.0.0.1', () => {
        upstream.write(first);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      held.push(upstream);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/simple/`,
    stalled,
    close: () =>
      new Promise((resolve) => {
        for (const s of held) s.destroy();
        server.close(() => resolve());
      }),
  };
}
