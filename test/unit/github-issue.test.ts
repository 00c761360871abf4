// Fetching a GitHub issue over real HTTP from a fake REST server on 127.0.0.1.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueText } from '../../cli/fix/issue-text.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { fetchIssue, parseIssueUrl } from '../../runtime/http/github-issue.js';

let server: Server;
let base = '';
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/repos/acme/calc/issues/7') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ title: 'add() is wrong', body: '`calc.ops.add(2, 2)` returns 5.' }));
    } else if (req.url === '/repos/acme/calc/issues/8') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ title: 'a PR', body: '', pull_request: {} }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('GitHub issues', () => {
  it('parses issue URLs, GitHub Enterprise hosts included', () => {
    expect(parseIssueUrl('https://github.com/acme/calc/issues/7')).toEqual({
      owner: 'acme',
      repo: 'calc',
      number: 7,
    });
    expect(parseIssueUrl('https://git.example.internal/acme/calc/issues/12#issuecomment-1')).toEqual({
      owner: 'acme',
      repo: 'calc',
      number: 12,
    });
    expect(parseIssueUrl('https://github.com/acme/calc/pull/7')).toBeNull();
    expect(parseIssueUrl('fix the bug')).toBeNull();
  });

  it('fetches title and body with the token, over the configured API base', async () => {
    const text = await fetchIssue(
      { owner: 'acme', repo: 'calc', number: 7 },
      { apiBase: `${base}/`, token: 'tok123' },
    );
    expect(text).toBe('# add() is wrong\n\n`calc.ops.add(2, 2)` returns 5.');
    const last = seen.at(-1)!;
    expect(last.headers.authorization).toBe('Bearer tok123');
    expect(last.headers.accept).toBe('application/vnd.github+json');
  });

  it('goes through `fix`s issue argument with GITHUB_API_URL', async () => {
    const text = await issueText('https://github.com/acme/calc/issues/7', { GITHUB_API_URL: base });
    expect(text.startsWith('# add() is wrong')).toBe(true);
    expect(seen.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('says what to do for a missing issue, a pull request, and an unreachable server', async () => {
    await expect(fetchIssue({ owner: 'acme', repo: 'calc', number: 9 }, { apiBase: base })).rejects.toSatisfy(
      (e) => isRuntimeError(e) && /GitHub answered 404/.test(e.message) && /GITHUB_TOKEN/.test(e.fix ?? ''),
    );
    await expect(fetchIssue({ owner: 'acme', repo: 'calc', number: 8 }, { apiBase: base })).rejects.toThrow(
      /is a pull request/,
    );
    await expect(
      fetchIssue({ owner: 'a', repo: 'b', number: 1 }, { apiBase: 'http://127.0.0.1:9', timeoutMs: 2000 }),
    ).rejects.toThrow(/cannot reach/);
  });
});
