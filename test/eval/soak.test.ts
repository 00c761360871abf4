// Many piper commands at once on one engine, as engineers in two terminals, parallel CI steps and
// `ab` instances give it: in each round, environment builds of different fixture projects (one key
// twice, one of them `--rebuild`), one-shot `run-test`s and `execute`s in one of those repositories
// (they need that key too), and scripted `fix` runs of the sample — all real CLI processes started
// together — and, once the builds' boxes run, one more command whose start-up sweep runs among
// them. Between rounds a new process sweeps alone. Every result must be right, no output may hold
// an engine error, and nothing may be left: no container of ours, no intermediate image, no lock.
import { readdirSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { envImageRef, projectId } from '../../runtime/env/floor/names.js';
import { packageRoot } from '../../runtime/package-root.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { runCli, startCli, type CliResult } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';

const ROUNDS = 3;
const FIXTURES = ['debian-src', 'flit-src', 'setup-cfg-only'] as const;
/** What an engine call that failed says (engine-failure.ts); none may reach any command's output. */
const ENGINE_ERROR = /\(HTTP \d{3}\)|No such (image|container)|is not running|Removal In Progress/i;
// A build's own intermediate tags carry its build id; a kept `-deps` image (deps-image.ts) is no intermediate.
const INTERMEDIATE = /:[0-9a-f]{12}-(deps|net|wheels|tools|topup|topup-apt)-[0-9a-f]{8}/;

const engine = new DockerEngine();
const repos = envScratch('piper-soak-');
afterAll(() => repos.cleanup(engine));

interface Command {
  what: string;
  run: ReturnType<typeof startCli>;
  check: (r: CliResult) => void;
}

/** The tests a fixture's suite holds: every one must pass in its environment. */
function testCount(fixture: string): number {
  const dir = join(packageRoot(), 'test', 'fixtures', 'env-projects', fixture, 'tests');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.py'))
    .reduce((n, f) => n + (readFileSync(join(dir, f), 'utf8').match(/^def test_/gm) ?? []).length, 0);
}

function command(what: string, args: string[], check: (r: CliResult) => void): Command {
  return { what, run: startCli(args, { env: NO_PIP }), check };
}

function envBuild(repo: string, fixture: string, rebuild: boolean): Command {
  const args = ['env', 'build', '--json', ...(rebuild ? ['--rebuild'] : []), '--repo', repo];
  return command(`env build${rebuild ? ' --rebuild' : ''} ${fixture}`, args, (r) => {
    const env = JSON.parse(r.stdout) as { status: string; image: string };
    expect(['built', 'hit']).toContain(env.status);
    expect(env.image).toBe(envImageRef(repo, (JSON.parse(r.stdout) as { key: string }).key).ref);
  });
}

function runTest(repo: string, fixture: string): Command {
  return command(`run-test ${fixture}`, ['run-test', 'tests/', '--repo', repo, '--json'], (r) => {
    const result = JSON.parse(r.stdout) as { passed: boolean; counts: { passed: number; failed: number } };
    expect(result.counts).toMatchObject({ passed: testCount(fixture), failed: 0 });
  });
}

function execute(repo: string, n: number): Command {
  const code = `import tinycalc\nprint(tinycalc.Money(${n}).add(tinycalc.Money(1)) == tinycalc.Money(${n + 1}), tinycalc.__file__)`;
  return command(`execute ${n}`, ['execute', '--repo', repo, '--json', '--code', code], (r) => {
    const receipt = JSON.parse(r.stdout) as { exit_code: number; stdout: string };
    expect(receipt).toMatchObject({ exit_code: 0, stdout: 'True /work/src/tinycalc/__init__.py\n' });
  });
}

function fix(): Command {
  return command('fix (sample)', sampleFixArgs(sampleRepo(), 'sample-fix.jsonl', '--output', 'json'), (r) => {
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', outcome: 'resolved', verified: true });
  });
}

/** Resolves once a line of the command's stderr starts with `prefix`. */
function onceSaid(c: Command, prefix: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.split('\n').some((l) => l.startsWith(prefix))) resolve();
    };
    c.run.child.stderr!.on('data', look);
    void c.run.done.then(() => resolve());
  });
}

/** Every command succeeded with the right result and no engine error; how many waited for a build. */
async function settle(commands: Command[]): Promise<number> {
  const results = await Promise.all(commands.map((c) => c.run.done));
  for (const [i, c] of commands.entries()) {
    const r = results[i]!;
    expect(r.code, `${c.what}: ${r.stderr.slice(-3000)}\n${r.stdout.slice(-3000)}`).toBe(0);
    expect(`${r.stdout}\n${r.stderr}`, c.what).not.toMatch(ENGINE_ERROR);
    c.check(r);
  }
  return results.filter((r) => r.stderr.includes('waiting for the build of this environment')).length;
}

/** Containers on the engine whose owner is one of these processes (the engine is shared). */
async function containersOf(pids: number[]) {
  return (await engine.listContainers([LABEL.owner])).filter((x) =>
    pids.some((pid) => x.labels[LABEL.owner]?.startsWith(`${hostname()}:${pid}:`)),
  );
}

/** A new process alone, after every command before it ended and left nothing: its start-up sweep runs. */
async function sweepAlone(repo: string, pids: number[]): Promise<void> {
  const left = await containersOf(pids);
  expect(left.map((c) => `${c.id.slice(0, 12)} ${c.state} ${JSON.stringify(c.labels)}`)).toEqual([]);
  const sweeper = await runCli(['execute', '--repo', repo, '--code', 'print(1)'], { env: NO_PIP });
  expect(sweeper.code, sweeper.stderr).toBe(0);
  expect(`${sweeper.stdout}\n${sweeper.stderr}`).not.toMatch(ENGINE_ERROR);
}

describe('many piper commands at once on one engine', () => {
  const repo: Record<string, string> = {};
  const pids: number[] = [];
  beforeAll(() => {
    for (const f of FIXTURES)
      repo[f] = repos.newRepo(f, {}, join(packageRoot(), 'test', 'fixtures', 'env-projects', f));
  });

  for (let round = 1; round <= ROUNDS; round++)
    it(`round ${round}: builds, run-tests, executes and fixes at once all succeed, with no engine error`, async () => {
      if (round > 1) await sweepAlone(repo[FIXTURES[0]]!, pids);
      const [a, b, c] = FIXTURES;
      const commands = [
        envBuild(repo[a]!, a, false),
        envBuild(repo[a]!, a, true),
        envBuild(repo[b]!, b, round > 1),
        envBuild(repo[c]!, c, false),
        runTest(repo[a]!, a),
        runTest(repo[b]!, b),
        execute(repo[a]!, round),
        execute(repo[a]!, round + 10),
        fix(),
        fix(),
      ];
      // A command whose start-up sweep runs while the builds' boxes and the sandboxes run.
      await Promise.race(commands.slice(0, 4).map((x) => onceSaid(x, '  [')));
      commands.push(runTest(repo[c]!, c));
      pids.push(...commands.map((x) => x.run.child.pid!));
      const waited = await settle(commands);
      console.log(
        `round ${round}: ${commands.length} commands at once, all succeeded; ${waited} waited for a build`,
      );
    });

  it('nothing is left behind: no container of ours, no intermediate image, no lock', async () => {
    await sweepAlone(repo[FIXTURES[0]]!, pids);
    const projects = FIXTURES.map((f) => `piper-env-${projectId(repo[f]!)}:`);
    const images = (await engine.listImages([])).flatMap((i) => i.tags);
    expect(images.filter((t) => INTERMEDIATE.test(t) && projects.some((p) => t.startsWith(p)))).toEqual([]);
    const lockDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'piper-agent', 'env-locks');
    const locks = readdirSync(lockDir, { withFileTypes: true }).map((d) => d.name);
    for (const f of FIXTURES) {
      const { repo: imageRepo } = envImageRef(repo[f]!, 'x');
      expect(locks.filter((l) => l.startsWith(imageRepo))).toEqual([]);
      // One key per project, however many commands built or reused it.
      expect(new Set(envRows(repo[f]!).map((r) => r.key)).size).toBe(1);
    }
  });
});
