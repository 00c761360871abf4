// Where the packages come from, against the real engine, pip and apt, with a local index on one
// fixed 127.0.0.1 port (never a public one): while it stalls, the build is a fallback from Debian's
// packages, said in one line and labelled so, and reused while the index still does not answer;
// once the index answers on the same URL, the fallback is not reused: a new build, from the index,
// even for a requirement a Debian package of the recipe already meets. `--sources debian` never
// asks the index.
import { mkdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL } from '../../runtime/env/floor/names.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex, type SimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-sources-');
afterAll(() => repos.cleanup(engine));

/** A listener that takes every connection and never says a word: an index that does not answer. */
async function stallingServer(): Promise<{
  port: number;
  connections: () => number;
  close(): Promise<void>;
}> {
  const sockets: Socket[] = [];
  const server = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => sockets.length,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const FALLBACK = /^environment: fallback build from Debian's packages: .*not reachable/m;

/** The attrs version and file the environment's Python imports. */
async function attrsIn(repo: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await runCli(
    ['execute', '--repo', repo, '--json', '--code', 'import attr; print(attr.__version__, attr.__file__)'],
    { env },
  );
  expect(r.code, r.stderr.slice(-2000)).toBe(0);
  return (JSON.parse(r.stdout) as { stdout: string }).stdout.trim();
}

describe('sources = index (the default)', () => {
  let repo: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let index: SimpleIndex | null = null;
  beforeAll(() => {
    repo = repos.newRepo('index-first', {
      'requirements.txt': 'attrs>=22.1\n',
      // Debian's attrs is in the image before pip is asked: under index it must not stand in.
      '.piper/sandbox.toml': 'apt = ["python3-attr"]\n',
      'tests/test_attrs.py': 'import attr\n\ndef test_attrs():\n    assert attr.__version__\n',
    });
  });
  afterAll(async () => {
    await index?.close();
  });

  it('falls back to Debian when the index does not answer: one line, the fallback label, reused while it still does not', async () => {
    const stall = await stallingServer();
    port = stall.port;
    // pip's patience as the user set it: 2 s a try, one retry (not in the key).
    env = {
      ...NO_PIP,
      PIP_INDEX_URL: `http://127.0.0.1:${port}/simple/`,
      PIP_TIMEOUT: '2',
      PIP_RETRIES: '1',
    };
    try {
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.stderr.match(new RegExp(FALLBACK.source, 'gm'))).toHaveLength(1);
      expect(r.stderr).toMatch(
        /fallback build from Debian's packages: your pip sources not reachable \(http:\/\/127\.0\.0\.1:\d+\/simple\/ \w+/,
      );
      // Asked with pip's own patience: two tries, both taken and left unanswered.
      expect(stall.connections()).toBe(2);
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      expect(row!.sources).toContain(
        'sources: debian, a fallback build (the setting is index: your pip sources not reachable',
      );
      const steps = JSON.parse(row!.steps) as Array<{ name: string; exit_code: number }>;
      expect(steps.find((s) => s.name === 'index probe')).toBeDefined();
      expect(steps.some((s) => s.name === 'pip')).toBe(false);
      const image = await engine.inspectImage(row!.image);
      expect(image!.labels[ENV_LABEL.sources]).toBe('debian-fallback');
      expect(await attrsIn(repo, env)).toMatch(/^\d[\d.]* \/usr\/lib\/python3\/dist-packages\/attr\//);

      // Still no answer: the same fallback, reused, and said again.
      const again = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
      expect(again.code, again.stderr.slice(-3000)).toBe(0);
      expect(again.stderr).toMatch(FALLBACK);
      const rows = envRows(repo);
      expect(rows.at(-1)).toMatchObject({ status: 'hit', key: row!.key, image: row!.image });
    } finally {
      await stall.close();
    }
  });

  it('once the index answers on the same URL, the fallback is not reused: a new build from the index', async () => {
    const dir = join(repos.scratch, 'index-files');
    mkdirSync(dir, { recursive: true });
    const wheel = buildWheel(dir, 'attrs', '99.1', {
      'attr/__init__.py': '__version__ = "99.1"\n',
      'attrs/__init__.py': 'from attr import __version__\n',
    });
    index = await serveSimpleIndex([wheel], undefined, port);
    const fallback = envRows(repo)[0]!;
    const rowsBefore = envRows(repo).length;
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).not.toMatch(FALLBACK);
    const row = envRows(repo)[rowsBefore]!;
    expect(row.status).toBe('built');
    expect(row.key).not.toBe(fallback.key);
    expect(row.sources).toContain('sources: index');
    const resolved = JSON.parse(row.resolved) as Array<{ name: string; version: string; source: string }>;
    expect(resolved).toContainEqual({ name: 'attrs', version: '99.1', source: 'pip' });
    expect(index.requests.some((q) => q.path === '/files/attrs-99.1-py3-none-any.whl')).toBe(true);
    const image = await engine.inspectImage(row.image);
    expect(image!.labels[ENV_LABEL.sources]).toBe('index');
    // The index's attrs, in the venv, over the recipe's Debian package.
    expect(await attrsIn(repo, env)).toMatch(/^99\.1 \/opt\/piper\/venv\//);

    // The index image is reused as it is: no probe, nothing asked of the index.
    const asked = index.requests.length;
    const hit = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
    expect(hit.code, hit.stderr.slice(-3000)).toBe(0);
    expect(envRows(repo).at(-1)).toMatchObject({ status: 'hit', key: row.key });
    expect(index.requests.length).toBe(asked);
  });

  it('--sources debian never asks the index, though it answers: its own image, labelled debian', async () => {
    const asked = index!.requests.length;
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json', '--sources', 'debian'], { env });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).not.toMatch(FALLBACK);
    expect(index!.requests.length).toBe(asked);
    const row = envRows(repo).at(-1)!;
    expect(row.status).toBe('built');
    expect(row.sources).toContain('sources: debian (');
    const steps = JSON.parse(row.steps) as Array<{ name: string }>;
    expect(steps.some((s) => s.name === 'index probe' || s.name === 'pip')).toBe(false);
    expect((await engine.inspectImage(row.image))!.labels[ENV_LABEL.sources]).toBe('debian');
  });
});
