// The host's wheel cache, against the real engine and pip, with a local PEP 503 index on 127.0.0.1
// that counts its file downloads: a first project's build downloads its two wheels; a second
// project (another key) with the same requirements downloads none — pip takes the cached wheels as
// already downloaded — and installs the same versions. The cache is a temporary directory.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildSdist, buildWheel, serveSimpleIndex, type SimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-wheel-cache-');
const cache = mkdtempSync(join(tmpdir(), 'piper-wheel-cache-'));
let index: SimpleIndex;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const dir = join(repos.scratch, 'index-files');
  mkdirSync(dir, { recursive: true });
  const wheels = [
    buildWheel(dir, 'piperalpha', '1.0', { 'piperalpha/__init__.py': 'V = "1.0"\n' }, ['piperbeta>=2']),
    buildWheel(dir, 'piperalpha', '1.1', { 'piperalpha/__init__.py': 'V = "1.1"\n' }, ['piperbeta>=2']),
    buildWheel(dir, 'piperbeta', '2.0', { 'piperbeta/__init__.py': 'V = "2.0"\n' }),
    // Served only as an sdist: built offline, once.
    buildSdist(dir, 'pipersrc', '1.0', {
      'setup.py':
        'from setuptools import setup\nsetup(name="pipersrc", version="1.0", py_modules=["pipersrc"])\n',
      'pipersrc.py': 'V = "1.0"\n',
    }),
  ];
  index = await serveSimpleIndex(wheels);
  env = { ...NO_PIP, PIP_INDEX_URL: `${index.url}`, PIPER_WHEEL_CACHE: cache };
});
afterAll(async () => {
  await index.close();
  await repos.cleanup(engine);
  rmSync(cache, { recursive: true, force: true });
});

const fileDownloads = () => index.requests.filter((q) => q.path.startsWith('/files/')).map((q) => q.path);

function project(
  name: string,
  requirement = 'piperalpha==1.0',
  modules = ['piperalpha', 'piperbeta'],
): string {
  return repos.newRepo(name, {
    // The same requirement; the file differs, so the key does.
    'requirements.txt': `${requirement}\n# ${name}\n`,
    'tests/test_it.py': `import ${modules.join(', ')}\n\ndef test_${name.replace(/-/g, '_')}():\n    assert all(m.V for m in [${modules.join(', ')}])\n`,
  });
}

function versions(repo: string): Array<{ name: string; version: string; source: string }> {
  const row = envRows(repo).at(-1)!;
  return (JSON.parse(row.resolved) as Array<{ name: string; version: string; source: string }>)
    .filter((p) => p.name.startsWith('piper'))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('the wheel cache', () => {
  it('a second project with the same requirements downloads no wheel and installs the same versions', async () => {
    const first = project('first');
    const r1 = await runCli(['run-test', 'tests/', '--repo', first, '--json'], { env });
    expect(r1.code, r1.stderr.slice(-3000)).toBe(0);
    expect(fileDownloads().sort()).toEqual([
      '/files/piperalpha-1.0-py3-none-any.whl',
      '/files/piperbeta-2.0-py3-none-any.whl',
    ]);
    const row1 = envRows(first).at(-1)!;
    expect(row1.status).toBe('built');
    expect(row1.sources).toContain('wheel cache: 0 wheel(s) offered');
    // Content-addressed, each under its sha256; nothing else of the box's.
    const blobs = readdirSync(join(cache, 'sha256')).flatMap((h) => readdirSync(join(cache, 'sha256', h)));
    expect(blobs.sort()).toEqual(['piperalpha-1.0-py3-none-any.whl', 'piperbeta-2.0-py3-none-any.whl']);

    const before = fileDownloads().length;
    const second = project('second');
    const r2 = await runCli(['run-test', 'tests/', '--repo', second, '--json'], { env });
    expect(r2.code, r2.stderr.slice(-3000)).toBe(0);
    const row2 = envRows(second).at(-1)!;
    expect(row2.status).toBe('built');
    expect(row2.key).not.toBe(row1.key);
    expect(fileDownloads().slice(before)).toEqual([]);
    expect(row2.sources).toContain('wheel cache: 2 wheel(s) offered');
    expect(versions(second)).toEqual(versions(first));
    expect(versions(second)).toEqual([
      expect.objectContaining({ name: 'piperalpha', version: '1.0' }),
      expect.objectContaining({ name: 'piperbeta', version: '2.0' }),
    ]);
  }, 600_000);

  it('a corrupt entry is not offered: the wheel is downloaded again and the entry mended', async () => {
    const hex = readdirSync(join(cache, 'sha256')).find((h) =>
      existsSync(join(cache, 'sha256', h, 'piperbeta-2.0-py3-none-any.whl')),
    )!;
    const blob = join(cache, 'sha256', hex, 'piperbeta-2.0-py3-none-any.whl');
    writeFileSync(blob, 'PK\u0003\u0004 not the wheel');
    const before = fileDownloads().length;
    const third = project('third');
    const r = await runCli(['run-test', 'tests/', '--repo', third, '--json'], { env });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(fileDownloads().slice(before)).toEqual(['/files/piperbeta-2.0-py3-none-any.whl']);
    expect(versions(third).map((p) => p.version)).toEqual(['1.0', '2.0']);
    expect(existsSync(blob)).toBe(true);
  }, 600_000);

  it('an offered wheel pip did not take never reaches the install: the constraint holds', async () => {
    // piperalpha 1.1 into the cache, from a project that asks for the newest.
    const newest = project('newest', 'piperalpha');
    const r1 = await runCli(['run-test', 'tests/', '--repo', newest, '--json'], { env });
    expect(r1.code, r1.stderr.slice(-3000)).toBe(0);
    expect(versions(newest).map((p) => p.version)).toEqual(['1.1', '2.0']);
    // A constraint the offline install does not read: 1.1 was offered, pip resolved 1.0, and 1.1 was
    // removed before the downloads left the box (else the install would pick the newest it sees).
    const constraints = join(repos.scratch, 'constraints.txt');
    writeFileSync(constraints, 'piperalpha==1.0\n');
    const before = fileDownloads().length;
    const held = project('held', 'piperalpha');
    const r2 = await runCli(['run-test', 'tests/', '--repo', held, '--json'], {
      env: { ...env, PIP_CONSTRAINT: constraints },
    });
    expect(r2.code, r2.stderr.slice(-3000)).toBe(0);
    expect(fileDownloads().slice(before)).toEqual([]);
    expect(envRows(held).at(-1)!.sources).toContain('wheel cache: 3 wheel(s) offered');
    expect(versions(held).map((p) => p.version)).toEqual(['1.0', '2.0']);
  }, 600_000);

  it('an sdist built once is not built again for another project: its wheel comes from the cache', async () => {
    const steps = (repo: string) =>
      (JSON.parse(envRows(repo).at(-1)!.steps) as Array<{ name: string }>).map((x) => x.name);
    const one = project('sdist-one', 'pipersrc==1.0', ['pipersrc']);
    const r1 = await runCli(['run-test', 'tests/', '--repo', one, '--json'], { env });
    expect(steps(one)).toContain('build pipersrc-1.0.tar.gz');
    expect(existsSync(join(cache, 'built'))).toBe(true);
    const two = project('sdist-two', 'pipersrc==1.0', ['pipersrc']);
    const r2 = await runCli(['run-test', 'tests/', '--repo', two, '--json'], { env });
    expect(steps(two)).not.toContain('build pipersrc-1.0.tar.gz');
    expect(envRows(two).at(-1)!.sources).toContain(
      "built offline before (pipersrc-1.0-py3-none-any.whl, this machine's wheel cache)",
    );
    const src = (repo: string) =>
      (JSON.parse(envRows(repo).at(-1)!.resolved) as Array<{ name: string; version: string }>).find(
        (p) => p.name === 'pipersrc',
      );
    expect(src(two)).toEqual(src(one));
    expect(src(two)?.version).toBe('1.0');
    expect(r1.code, r1.stderr.slice(-3000)).toBe(0);
    expect(r2.code, r2.stderr.slice(-3000)).toBe(0);
  }, 600_000);
});
