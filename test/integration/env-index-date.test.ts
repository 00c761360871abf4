// The index as of a date, against the real engine and pip: a local index on 127.0.0.1 (JSON pages
// with upload times, behind a login) holds two releases of one distribution; with PIPER_INDEX_DATE
// between their uploads the environment gets the older, through piper's dated view, and the login
// reaches the index and nothing else.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildWheel } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-dated-');
afterAll(() => repos.cleanup(engine));

const LOGIN = 'Basic ' + Buffer.from('dated:pa55word').toString('base64');

/** Serves each wheel with its upload time in PEP 691 JSON pages; every request recorded. */
async function datedIndex(wheels: Array<{ path: string; uploaded: string }>) {
  const requests: Array<{ path: string; authorized: boolean }> = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    requests.push({ path, authorized: req.headers.authorization === LOGIN });
    if (req.headers.authorization !== LOGIN) return void res.writeHead(401).end();
    const wheel = wheels.find((w) => path === `/files/${basename(w.path)}`);
    if (wheel) return void res.writeHead(200).end(readFileSync(wheel.path));
    if (path !== '/simple/datedpkg/') return void res.writeHead(404).end();
    const files = wheels.map((w) => ({
      filename: basename(w.path),
      url: `/files/${basename(w.path)}`,
      hashes: { sha256: createHash('sha256').update(readFileSync(w.path)).digest('hex') },
      'upload-time': w.uploaded,
    }));
    res
      .writeHead(200, { 'Content-Type': 'application/vnd.pypi.simple.v1+json' })
      .end(JSON.stringify({ meta: { 'api-version': '1.1' }, name: 'datedpkg', files }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://dated:pa55word@127.0.0.1:${port}/simple/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the index as of a date', () => {
  it('resolves an unpinned requirement to the release uploaded before the date', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-dated-wheels-'));
    const index = await datedIndex([
      {
        path: buildWheel(dir, 'datedpkg', '1.0', { 'datedpkg/__init__.py': 'VERSION = "1.0"\n' }),
        uploaded: '2020-01-01T00:00:00Z',
      },
      {
        path: buildWheel(dir, 'datedpkg', '2.0', { 'datedpkg/__init__.py': 'VERSION = "2.0"\n' }),
        uploaded: '2023-01-01T00:00:00Z',
      },
    ]);
    try {
      const repo = repos.newRepo('dated', {
        'requirements.txt': 'datedpkg\n',
        'tests/test_dated.py':
          'import datedpkg\n\n\ndef test_older():\n    assert datedpkg.VERSION == "1.0"\n',
      });
      const env = {
        ...NO_PIP,
        PIP_INDEX_URL: index.url,
        PIPER_INDEX_DATE: '2021-06-01',
        PIPER_WHEEL_CACHE: join(dir, 'cache'),
      };
      const r = await runCli(['run-test', '--repo', repo, '--json', 'tests/'], { env });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect((JSON.parse(r.stdout) as { counts: { passed: number } }).counts.passed).toBe(1);
      expect(index.requests.some((q) => q.path === '/simple/datedpkg/' && q.authorized)).toBe(true);
      expect(index.requests.some((q) => q.path.endsWith('datedpkg-2.0-py3-none-any.whl'))).toBe(false);
      const row = envRows(repo).at(-1)!;
      expect(row.sources).toContain('index date 2021-06-01T00:00:00.000Z: pip reads http://***@127.0.0.1:');
      for (const text of [r.stdout, r.stderr, JSON.stringify(envRows(repo))])
        expect(text).not.toContain('pa55word');
    } finally {
      await index.close();
    }
  }, 600_000);
});
