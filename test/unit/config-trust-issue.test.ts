// Issue sources: an issue URL is fetched only when it names GitHub (or the host of
// GITHUB_API_URL) — any other host is refused before a request, so the user's token never goes out
// for it — and an issue file must be text: empty, NUL bytes or invalid UTF-8 are usage errors.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/exit-codes.js';
import { issueText } from '../../cli/fix/issue-text.js';

let server: Server;
let api = '';
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ title: 'bug', body: 'it breaks' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('issue URLs', () => {
  it('refuses a URL of any other host without a request, token or not', async () => {
    const env = { GITHUB_API_URL: api, GITHUB_TOKEN: 'ghp_secret' };
    for (const url of [
      'https://evil.example.com/acme/calc/issues/7',
      'https://github.com.evil.example/acme/calc/issues/7',
      'http://gitlab.example/acme/calc/-/issues/7',
    ]) {
      await expect(issueText(url, env)).rejects.toThrow(UsageError);
    }
    await expect(issueText('https://evil.example.com/acme/calc/issues/7', env)).rejects.toThrow(
      /evil\.example\.com is not GitHub/,
    );
    expect(requests).toEqual([]);
  });

  it("fetches GitHub's and the Enterprise host's issue URLs from the API base", async () => {
    const env = { GITHUB_API_URL: `${api}/api/v3` };
    expect(await issueText('https://github.com/acme/calc/issues/7', env)).toBe('# bug\n\nit breaks');
    expect(await issueText('http://127.0.0.1/acme/calc/issues/8', env)).toBe('# bug\n\nit breaks');
    expect(requests).toEqual(['/api/v3/repos/acme/calc/issues/7', '/api/v3/repos/acme/calc/issues/8']);
  });

  it('refuses a GitHub URL that is not an issue, and keeps text that merely starts with a URL', async () => {
    await expect(issueText('https://github.com/acme/calc/pull/7', {})).rejects.toThrow(
      /not a GitHub issue URL/,
    );
    expect(await issueText('https://example.com/docs says add() is wrong', {})).toBe(
      'https://example.com/docs says add() is wrong',
    );
  });
});

describe('issue files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'piper-issue-'));
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };

  it('refuses empty, NUL-carrying and invalid UTF-8 files, and a directory', async () => {
    await expect(issueText(file('empty.md', ''), {})).rejects.toThrow(/is empty/);
    await expect(issueText(file('blank.txt', ' \n\t\n'), {})).rejects.toThrow(/is empty/);
    await expect(issueText(file('nul.md', Buffer.from('abc\0def')), {})).rejects.toThrow(/is binary/);
    await expect(issueText(file('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9])), {})).rejects.toThrow(
      /not valid UTF-8/,
    );
    const sub = join(dir, 'a-dir.md');
    mkdirSync(sub);
    await expect(issueText(sub, {})).rejects.toThrow(/not a regular file/);
  });

  it('reads a UTF-8 file, trimmed', async () => {
    expect(await issueText(file('ok.md', '\n# café ☕\n\nbroken\n'), {})).toBe('# café ☕\n\nbroken');
  });
});
