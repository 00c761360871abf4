// The index as of a date, served on 127.0.0.1 for one build: each project page is the upstream
// index's PEP 691 page with the files uploaded at or after the cutoff dropped (dated-page.ts). pip
// in the networked boxes, the sdist fetcher and an sdist's build requirements all read it as their
// index. A proxy on the host works for every pip the sandbox has (none has an upload-date option)
// and for piper's own fetcher. The upstream's login (the index URL's user:password) stays on the
// host: pages and the files on the upstream's own origin are fetched through the view with it,
// sent to that origin alone (never to a redirect elsewhere), and never in a page, a log or an error.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { datedPage } from './dated-page.js';

export interface DatedIndex {
  /** The index URL the build's pip is given instead of the upstream's. */
  url: string;
  /** Files offered and dropped so far, and pages the upstream gave without upload times. */
  counts: { kept: number; dropped: number; undated: number };
  close(): Promise<void>;
}

export interface DatedIndexOptions {
  /** The upstream simple index, credentials included. */
  upstream: string;
  cutoffMs: number;
  /** The CA bundle the user's pip trusts (PEM), for an https upstream. */
  ca?: Buffer | null;
  timeoutMs?: number;
}

const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';
const MAX_PAGE = 64 * 1024 * 1024;
const FILES = '/_files';

interface Upstream {
  base: URL;
  auth: string | null;
  opts: DatedIndexOptions;
}

function upstreamOf(opts: DatedIndexOptions): Upstream {
  const base = new URL(opts.upstream.endsWith('/') ? opts.upstream : `${opts.upstream}/`);
  const login = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
  const auth = base.username ? `Basic ${Buffer.from(login).toString('base64')}` : null;
  base.username = '';
  base.password = '';
  return { base, auth, opts };
}

function open(url: URL, up: Upstream, accept: string): Promise<IncomingMessage> {
  const headers: Record<string, string> = { Accept: accept };
  // The login goes to the configured index's origin and nowhere else.
  if (up.auth && url.origin === up.base.origin) headers.Authorization = up.auth;
  const options = {
    headers,
    timeout: up.opts.timeoutMs ?? 30_000,
    ...(up.opts.ca ? { ca: up.opts.ca } : {}),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, resolve);
    req.on('timeout', () => req.destroy(new Error('the upstream index did not answer in time')));
    req.on('error', reject);
    req.end();
  });
}

/** The answer at `url`, after at most three redirects. */
async function follow(url: URL, up: Upstream, accept: string): Promise<{ res: IncomingMessage; url: URL }> {
  for (let hop = 0; ; hop++) {
    const res = await open(url, up, accept);
    const status = res.statusCode ?? 502;
    if (status < 300 || status >= 400 || !res.headers.location || hop === 3) return { res, url };
    res.resume();
    url = new URL(res.headers.location, url);
  }
}

function body(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAGE) res.destroy(new Error('the page is larger than 64 MiB'));
      else chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

async function servePage(
  project: string,
  up: Upstream,
  view: URL,
  out: ServerResponse,
  counts: DatedIndex['counts'],
) {
  const { res, url } = await follow(
    new URL(`${encodeURIComponent(project)}/`, up.base),
    up,
    `${JSON_TYPE}, text/html;q=0.1`,
  );
  const page = await body(res);
  if (res.statusCode !== 200) return void out.writeHead(res.statusCode === 404 ? 404 : 502).end();
  if (!String(res.headers['content-type'] ?? '').includes(JSON_TYPE)) {
    counts.undated++;
    return void out
      .writeHead(502, { 'Content-Type': 'text/plain' })
      .end('the upstream index gives no upload times (PEP 691 and 700)');
  }
  const localize = (href: URL) =>
    href.origin === up.base.origin
      ? new URL(`${FILES}${href.pathname}${href.search}${href.hash}`, view)
      : href;
  const dated = datedPage(
    JSON.parse(page.toString('utf8')),
    `${url.origin}${url.pathname}`,
    up.opts.cutoffMs,
    localize,
  );
  counts.kept += dated.kept;
  counts.dropped += dated.dropped;
  out.writeHead(200, { 'Content-Type': 'text/html' }).end(dated.html);
}

/** A file on the upstream's origin, streamed through with the login. */
async function serveFile(path: string, up: Upstream, out: ServerResponse) {
  const { res } = await follow(new URL(path, up.base.origin), up, '*/*');
  const headers: Record<string, string> = {
    'Content-Type': String(res.headers['content-type'] ?? 'application/octet-stream'),
  };
  if (res.headers['content-length']) headers['Content-Length'] = res.headers['content-length'];
  out.writeHead(res.statusCode ?? 502, headers);
  res.pipe(out);
}

export async function startDatedIndex(opts: DatedIndexOptions): Promise<DatedIndex> {
  const counts = { kept: 0, dropped: 0, undated: 0 };
  const up = upstreamOf(opts);
  let view = new URL('http://127.0.0.1/');
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    const project = /^\/simple\/([^/?#]+)\/?(?:[?#].*)?$/.exec(path)?.[1];
    const done =
      req.method !== 'GET'
        ? Promise.resolve(void res.writeHead(405).end())
        : project
          ? servePage(decodeURIComponent(project), up, view, res, counts)
          : path.startsWith(`${FILES}/`)
            ? serveFile(path.slice(FILES.length), up, res)
            : Promise.resolve(void res.writeHead(404).end());
    // The error's kind only: a message could carry the upstream URL.
    done.catch((error: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(error.name);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  view = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return {
    url: new URL('/simple/', view).href,
    counts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
