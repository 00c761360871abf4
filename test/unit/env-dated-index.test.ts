// The index as of a date (runtime/env/build/network/dated-page.ts, dated-index.ts): a project page
// keeps only files uploaded before the cutoff, as PEP 503 HTML any pip reads; the view on
// 127.0.0.1 sends the upstream's login to the upstream's origin alone, for pages and files.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDatedIndex } from '../../runtime/env/build/network/dated-index.js';
import { datedPage } from '../../runtime/env/build/network/dated-page.js';
import { parseCutoff } from '../../runtime/env/floor/index-date.js';

const SHA = 'a'.repeat(64);
const page = (files: object[]) => ({ meta: { 'api-version': '1.1' }, name: 'pkg', files });
const file = (version: string, uploaded: string | undefined, extra: object = {}) => ({
  filename: `pkg-${version}-py3-none-any.whl`,
  url: `../../files/pkg-${version}-py3-none-any.whl`,
  hashes: { sha256: SHA },
  ...(uploaded ? { 'upload-time': uploaded } : {}),
  ...extra,
});

describe('parseCutoff', () => {
  it('reads a date as midnight UTC and an ISO instant as written', () => {
    expect(parseCutoff('2021-06-01')).toBe(Date.UTC(2021, 5, 1));
    expect(parseCutoff('2019-03-14T18:55:37Z')).toBe(Date.UTC(2019, 2, 14, 18, 55, 37));
    expect(parseCutoff('2019-03-14T18:55:37')).toBe(Date.UTC(2019, 2, 14, 18, 55, 37));
    expect(parseCutoff('yesterday')).toBeNull();
    expect(parseCutoff('2019-13-45')).toBeNull();
  });
});

describe('datedPage', () => {
  it('keeps files uploaded before the cutoff, drops those at or after it and those with no time', () => {
    const cutoff = Date.UTC(2021, 0, 1);
    const dated = datedPage(
      page([
        file('1.0', '2020-01-01T00:00:00.000000Z', { 'requires-python': '>=3.6' }),
        file('1.1', '2021-01-01T00:00:00Z'),
        file('2.0', '2023-01-01T00:00:00Z'),
        file('0.9', undefined),
        file('0.8', '2019-01-01T00:00:00Z', { yanked: 'broken <build>' }),
      ]),
      'http://index.test/simple/pkg/',
      cutoff,
    );
    expect([dated.kept, dated.dropped]).toEqual([2, 3]);
    expect(dated.html).toContain(
      `<a href="http://index.test/files/pkg-1.0-py3-none-any.whl#sha256=${SHA}" data-requires-python="&gt;=3.6">pkg-1.0-py3-none-any.whl</a>`,
    );
    expect(dated.html).toContain('data-yanked="broken &lt;build&gt;"');
    expect(dated.html).not.toContain('pkg-1.1');
    expect(dated.html).not.toContain('pkg-2.0');
    expect(dated.html).not.toContain('pkg-0.9');
  });

  it('gives an empty page for a body that is not a project page', () => {
    expect(datedPage(null, 'http://index.test/simple/x/', 0).kept).toBe(0);
    expect(datedPage({ files: 'no' }, 'http://index.test/simple/x/', 0).html).toContain('<body>');
  });
});

describe('the dated view of an index', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function serve(handler: (path: string, headers: IncomingHttpHeaders) => [number, object, string]) {
    const server: Server = createServer((req, res) => {
      const [status, headers, body] = handler(req.url ?? '', req.headers);
      res.writeHead(status, headers as Record<string, string>).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("serves the upstream's JSON page dated, the login sent to the upstream alone", async () => {
    const seen: Array<{ path: string; auth: string | undefined; accept: string | undefined }> = [];
    const elsewhere = await serve((path, h) => {
      seen.push({ path: `elsewhere${path}`, auth: h.authorization, accept: h.accept });
      return [200, { 'Content-Type': 'application/vnd.pypi.simple.v1+json' }, JSON.stringify(page([]))];
    });
    const upstream = await serve((path, h) => {
      seen.push({ path, auth: h.authorization, accept: h.accept });
      if (path === '/simple/moved/') return [301, { Location: `http://${elsewhere}/simple/moved/` }, ''];
      if (path === '/simple/html/') return [200, { 'Content-Type': 'text/html' }, '<a href="x">x</a>'];
      if (path === '/files/pkg-1.0-py3-none-any.whl')
        return h.authorization
          ? [200, { 'Content-Type': 'application/octet-stream' }, 'wheel']
          : [401, {}, ''];
      if (path !== '/simple/pkg/') return [404, {}, ''];
      const files = [file('1.0', '2020-01-01T00:00:00Z'), file('2.0', '2023-01-01T00:00:00Z')];
      return [200, { 'Content-Type': 'application/vnd.pypi.simple.v1+json' }, JSON.stringify(page(files))];
    });
    const view = await startDatedIndex({
      upstream: `http://user:s3cret@${upstream}/simple/`,
      cutoffMs: Date.UTC(2021, 0, 1),
    });
    closers.push(() => view.close());
    expect(view.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/simple\/$/);
    const got = await fetch(`${view.url}pkg/`);
    const html = await got.text();
    expect([got.status, got.headers.get('content-type')]).toEqual([200, 'text/html']);
    // A file on the upstream's origin comes through the view, which holds the login.
    const href = `${view.url.replace('/simple/', '')}/_files/files/pkg-1.0-py3-none-any.whl`;
    expect(html).toContain(`${href}#sha256=${SHA}`);
    expect(await (await fetch(href)).text()).toBe('wheel');
    expect(html).not.toContain('pkg-2.0');
    expect(html).not.toContain('s3cret');
    expect(seen[0]).toMatchObject({ path: '/simple/pkg/', auth: `Basic ${btoa('user:s3cret')}` });
    expect(seen[0]!.accept).toContain('application/vnd.pypi.simple.v1+json');
    expect((await fetch(`${view.url}moved/`)).status).toBe(200);
    expect(seen.find((s) => s.path.startsWith('elsewhere'))?.auth).toBeUndefined();
    expect((await fetch(`${view.url}nothing/`)).status).toBe(404);
    const html502 = await fetch(`${view.url}html/`);
    expect(html502.status).toBe(502);
    expect(await html502.text()).not.toContain('s3cret');
    expect(view.counts).toEqual({ kept: 1, dropped: 1, undated: 1 });
  });
});
