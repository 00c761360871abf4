// The sdist fetcher's patience is pip's: against a local page (127.0.0.1) whose first request is
// taken and never answered, the listing waits PIP_TIMEOUT, tries again (PIP_RETRIES) and gets the
// page; with no retry it gives up on that index, as pip would. The step's script runs on the host's
// Python here, as the build box's Debian Python runs it. The download steps' time limits leave room
// for the user's whole patience.
import { execFile } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pipDownloadStep,
  sdistFetchStep,
  sdistListStep,
} from '../../runtime/env/build/deps/download-steps.js';
import { Redactor } from '../../runtime/env/plan/secrets.js';

const run = promisify(execFile);
let server: Server;
let url: string;
let asked = 0;
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/simple/demo/') return void res.writeHead(404).end();
    // Every other request for the page stalls: the first, the third, ...
    if (asked++ % 2 === 0) return void held.push(res);
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end('<a href="/files/demo-1.0.tar.gz#sha256=' + '0'.repeat(64) + '">demo-1.0.tar.gz</a>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/simple/`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

async function list(retries: string): Promise<string> {
  const step = sdistListStep('demo', []);
  const env = { PATH: process.env.PATH, PIP_INDEX_URL: url, PIP_TIMEOUT: '1', PIP_RETRIES: retries };
  return (await run('bash', ['-c', step.script], { env, timeout: 20_000 })).stdout;
}

describe("the sdist fetcher's patience", () => {
  it('a page whose first request stalls is asked again and listed', async () => {
    asked = 0;
    expect(await list('2')).toContain('piper-sdist 1.0 demo-1.0.tar.gz');
    expect(asked).toBe(2);
  });

  it('with no retry, the stalled index is given up on, said', async () => {
    asked = 0;
    expect(await list('0')).toMatch(/^piper-sdist-error \w+/m);
    expect(asked).toBe(1);
  });

  it("the download steps' time limits cover a long timeout of the user's, every try of it", () => {
    const patient = ['PIP_TIMEOUT=180', 'PIP_RETRIES=5', 'PIP_EXTRA_INDEX_URL=http://a/simple/'];
    const whole = 2 * 6 * 180;
    expect(pipDownloadStep(['attrs'], patient, new Redactor([])).timeoutS).toBeGreaterThan(whole);
    expect(sdistListStep('attrs', patient).timeoutS).toBeGreaterThan(whole);
    expect(sdistFetchStep('attrs', 'attrs-1.tar.gz', patient).timeoutS).toBeGreaterThan(whole);
    // pip's defaults keep the limits they had.
    expect(pipDownloadStep(['attrs'], [], new Redactor([])).timeoutS).toBe(600);
    expect(sdistListStep('attrs', []).timeoutS).toBe(Math.max(120, 60 + 6 * 23));
  });
});
