// Environment builds beside other piper processes, as real CLI processes on the real engine: two
// processes that need one environment key at once (one of them `--rebuild`) build it once — the
// other waits, saying whose build it waits for, and uses the image — with no engine error and no
// intermediate image left; and a build box removed from outside while its step runs makes the
// phase run again in a new box, or, removed twice, one line naming the box, the step and the
// engine's error.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { projectId } from '../../runtime/env/floor/names.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { packageRoot } from '../../runtime/package-root.js';
import { startCli, type CliResult } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-concurrent-');
afterAll(() => repos.cleanup(engine));

/** Tags of the images a build makes between its phases (names.ts intermediateTag). */
const INTERMEDIATE =
  /^piper-env-[0-9a-f]{12}:[0-9a-f]{12}-(deps|net|wheels|tools|topup|topup-apt)-[0-9a-f]{8}/;
/** What an engine call that failed says (engine-failure.ts): none may reach a user's output. */
const ENGINE_ERROR = /\(HTTP \d{3}\)|No such (image|container)|is not running/;

/** This repository's images (other builds may run on the shared engine). */
async function intermediateImages(repo: string): Promise<string[]> {
  return (await engine.listImages([]))
    .flatMap((i) => i.tags)
    .filter((t) => INTERMEDIATE.test(t) && t.startsWith(`piper-env-${projectId(repo)}:`));
}

async function leftContainers(pid: number): Promise<string[]> {
  const all = await engine.listContainers(['piper.env.build']);
  return all.filter((c) => c.labels[LABEL.owner]?.startsWith(`${hostname()}:${pid}:`)).map((c) => c.id);
}

/**
 * `env build --rebuild` whose build box is removed (with force) from outside each time the step
 * `step` is announced (the removal lands during that step or the next: the failure names whichever) — the box is running then, the step's exec starting — up to `times` times.
 */
async function buildRemovingBox(repo: string, step: string, times: number) {
  const cli = startCli(['env', 'build', '--rebuild', '--repo', repo], { env: NO_PIP });
  const pid = cli.child.pid!;
  const removed: string[] = [];
  let seen = '';
  let removing = Promise.resolve();
  cli.child.stderr!.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    const announced = seen.split('\n').filter((l) => l.startsWith(`  [${step}] `)).length;
    if (announced > removed.length && removed.length < times) {
      removed.push('pending');
      removing = removing.then(async () => {
        const [id] = await leftContainers(pid);
        expect(id, 'the build box of the announced step').toBeDefined();
        removed[removed.length - 1] = id!;
        await engine.remove(id!);
      });
    }
  });
  const result = await cli.done;
  await removing;
  return { result, removed, pid };
}

describe('two processes that need one environment key at once', () => {
  let repo: string;
  beforeAll(() => {
    repo = repos.newRepo(
      'debian-src',
      {},
      join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'),
    );
  });

  it('build it once: the other waits for that build, names whose it is, and uses the image', async () => {
    const first = startCli(['env', 'build', '--repo', repo], { env: NO_PIP });
    const second = startCli(['env', 'build', '--rebuild', '--repo', repo], { env: NO_PIP });
    const results: CliResult[] = await Promise.all([first.done, second.done]);
    for (const r of results) {
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(`${r.stdout}\n${r.stderr}`).not.toMatch(ENGINE_ERROR);
    }
    const pids = [first.child.pid!, second.child.pid!];
    const waiter = results.findIndex((r) => r.stderr.includes('waiting for the build of this environment'));
    expect(waiter, 'one of them waited').toBeGreaterThanOrEqual(0);
    const builder = 1 - waiter;
    const line = results[waiter]!.stderr.split('\n').filter((l) => l.includes('waiting for the build'));
    expect(line).toHaveLength(1);
    expect(line[0]).toContain(`by process ${pids[builder]} on ${hostname()}, since `);
    const rows = envRows(repo);
    expect(new Set(rows.map((r) => r.key)).size).toBe(1);
    // The waiter uses the image the other build made as it is, or builds after it.
    expect(rows.map((r) => r.status).sort()).toEqual(
      results[waiter]!.stderr.includes('the build this one waited for made')
        ? ['built', 'hit']
        : ['built', 'built'],
    );
    expect(await intermediateImages(repo)).toEqual([]);
    for (const pid of pids) expect(await leftContainers(pid)).toEqual([]);
  }, 600_000);

  it('a build box removed from outside mid-step: the phase runs again in a new box and the build succeeds', async () => {
    const { result, removed, pid } = await buildRemovingBox(repo, 'venv', 1);
    expect(removed).toHaveLength(1);
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `build box ${removed[0]!.slice(0, 12)} went away during step \\S+: .*; the dependencies phase runs again in a new box`,
      ),
    );
    expect(result.stdout).toContain('built: piper-env-');
    expect(envRows(repo).at(-1)!.status).toBe('built');
    expect(await intermediateImages(repo)).toEqual([]);
    expect(await leftContainers(pid)).toEqual([]);
  }, 600_000);

  it('removed again in the new box: the build fails with one line naming the box, the step and the engine error', async () => {
    const { result, removed, pid } = await buildRemovingBox(repo, 'venv', 2);
    expect(removed).toHaveLength(2);
    expect(result.code).not.toBe(0);
    const failure = result.stderr.split('\n').filter((l) => l.includes('lost its box twice'));
    expect(failure).toHaveLength(1);
    console.log(failure[0]);
    expect(failure[0]).toMatch(
      new RegExp(
        `the dependencies phase lost its box twice: build box ${removed[1]!.slice(0, 12)} went away during step \\S+: \\S`,
      ),
    );
    expect(envRows(repo).at(-1)!.status).toBe('failed');
    expect(await intermediateImages(repo)).toEqual([]);
    expect(await leftContainers(pid)).toEqual([]);
  }, 600_000);
});
