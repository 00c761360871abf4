// An index that stalls (takes the connection, answers nothing) for longer than one attempt, then
// answers: against the real engine and pip, with a local index on 127.0.0.1 behind a front that
// holds the chosen requests. pip's own patience as the user set it (3 s a try, 2 retries) reaches
// the probe and the download: a stall of one attempt is waited out and the environment is built
// from the index, never silently from Debian's packages; a stall that outlasts every retry of the
// download makes the visible fallback (its label and its one line), never an unlabelled Debian build.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL } from '../../runtime/env/floor/names.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { stallingFront, type StallingFront } from '../helpers/stalling-front.js';
import { buildWheel, serveSimpleIndex, type SimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-stall-');
afterAll(() => repos.cleanup(engine));

const FALLBACK = /^environment: fallback build from Debian's packages: .*not reachable/gm;

let index: SimpleIndex;
const fronts: StallingFront[] = [];
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'piper-stall-wheels-'));
  index = await serveSimpleIndex([
    buildWheel(dir, 'stallpkg', '1.5', { 'stallpkg/__init__.py': '__version__ = "1.5"\n' }),
  ]);
});
afterAll(async () => {
  for (const f of fronts) await f.close();
  await index.close();
});

/** A front over the index; the environment of a user whose pip waits 3 s a try, 2 retries. */
async function front(stall: (line: string, n: number) => boolean) {
  const f = await stallingFront(Number(new URL(index.url).port), stall);
  fronts.push(f);
  const wheelCache = mkdtempSync(join(repos.scratch, 'cache-'));
  const env = {
    ...NO_PIP,
    PIP_INDEX_URL: f.url,
    PIP_TIMEOUT: '3',
    PIP_RETRIES: '2',
    PIPER_WHEEL_CACHE: wheelCache,
  };
  return { f, env };
}

function project(name: string): string {
  return repos.newRepo(name, {
    'requirements.txt': 'stallpkg==1.5\n',
    'tests/test_stall.py': `import stallpkg\n\ndef test_${name.replace(/-/g, '_')}():\n    assert stallpkg.__version__ == "1.5"\n`,
  });
}

/** The environment's stallpkg: its version and file, or the import's error. */
async function stallpkgIn(repo: string, env: NodeJS.ProcessEnv): Promise<string> {
  const code =
    'try:\n import stallpkg; print(stallpkg.__version__, stallpkg.__file__)\nexcept ImportError as e: print("absent", e)';
  const r = await runCli(['execute', '--repo', repo, '--json', '--code', code], { env });
  expect(r.code, r.stderr.slice(-2000)).toBe(0);
  return (JSON.parse(r.stdout) as { stdout: string }).stdout.trim();
}

async function builtFromIndex(repo: string, env: NodeJS.ProcessEnv): Promise<void> {
  const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
  expect(r.code, r.stderr.slice(-3000)).toBe(0);
  expect(r.stderr).not.toMatch(FALLBACK);
  const [row] = envRows(repo);
  expect(row!.status).toBe('built');
  expect(row!.sources).toContain('sources: index');
  expect(JSON.parse(row!.resolved)).toContainEqual({ name: 'stallpkg', version: '1.5', source: 'pip' });
  expect((await engine.inspectImage(row!.image))!.labels[ENV_LABEL.sources]).toBe('index');
  expect(await stallpkgIn(repo, env)).toMatch(/^1\.5 \/opt\/piper\/venv\//);
}

describe('an index that stalls, then answers', { timeout: 300_000 }, () => {
  it("a stall of the probe's first attempt is waited out: the environment comes from the index", async () => {
    const { f, env } = await front((line, n) => line.startsWith('HEAD /simple/ ') && n === 1);
    const repo = project('probe-stall');
    await builtFromIndex(repo, env);
    expect(f.stalled).toHaveLength(1);
    const steps = JSON.parse(envRows(repo)[0]!.steps) as Array<{ name: string; exit_code: number }>;
    expect(steps.find((s) => s.name === 'index probe')?.exit_code).toBe(0);
  });

  it("a stall of pip's first request for the project's page is retried by pip: the environment comes from the index", async () => {
    const { f, env } = await front((line, n) => line.startsWith('GET /simple/stallpkg/') && n === 1);
    const repo = project('download-stall');
    await builtFromIndex(repo, env);
    expect(f.stalled).toEqual([expect.stringMatching(/^GET \/simple\/stallpkg\/ HTTP/)]);
  });

  it('a stall that outlasts every retry of the download is the visible fallback: labelled, said in one line', async () => {
    // The probe is answered; every request for the project's page is held.
    const { f, env } = await front((line) => line.startsWith('GET /simple/stallpkg/'));
    const repo = project('endless-stall');
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
    expect(r.stderr.match(FALLBACK), r.stderr.slice(-3000)).toHaveLength(1);
    // pip's three tries, each given its whole 3 s.
    expect(f.stalled.length).toBeGreaterThanOrEqual(3);
    const row = envRows(repo).find((x) => x.status === 'built')!;
    expect(row.sources).toContain('sources: debian, a fallback build (the setting is index');
    expect((await engine.inspectImage(row.image))!.labels[ENV_LABEL.sources]).toBe('debian-fallback');
    expect(await stallpkgIn(repo, env)).toMatch(/^absent /);
  });
});
