// node dist/bench/wheel-cache.js [--json] [--rounds N] [--stack two|science]
// The host's wheel cache (runtime/env/build/network/wheel-cache.ts): an environment's first build,
// and its rebuild after one changed dependency, of a 2-dependency fixture (numpy and attrs, wheels
// from pip's default index) or a scientific stack (numpy, pandas, xarray and what they require),
// with the wheel cache cold (an empty PIPER_WHEEL_CACHE) and warm (the
// same requirements built once before, by another project). Then a second commit of one installable
// project (one source file changed, a new commit): the time to its environment being ready, on the
// dependency image its first commit kept. The baseline, side by side in each round:
// `pip install -r` of the same requirements into a fresh plain venv on the host, its pip cache cold
// (an empty --cache-dir) and warm; and `uv pip install` into a fresh venv the same way when uv can be
// installed (its cache: an empty UV_CACHE_DIR, then the same one). Each build is a new key: the
// requirements file carries the round and arm in a comment. Every image made here is removed at the end.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { DockerEngine } from '../runtime/engine/docker-engine.js';
import { ensureEnvironment } from '../runtime/env/choose/ensure.js';
import { ENV_LABEL, projectId } from '../runtime/env/floor/names.js';
import { copyAsGitRepo } from '../runtime/host/git.js';
import { gitInOwnRepo } from '../runtime/host/safe-git.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { percentile, printTable } from './stats.js';

/** Each stack's requirements, the same with one changed dependency, and what its test imports. */
const STACKS = {
  two: {
    first: ['numpy==2.1.3', 'attrs==25.3.0'],
    changed: ['numpy==2.1.3', 'attrs==24.3.0'],
    imports: 'attrs, numpy',
  },
  science: {
    first: ['numpy==2.1.3', 'pandas==2.2.3', 'xarray==2024.11.0'],
    changed: ['numpy==2.1.3', 'pandas==2.2.3', 'xarray==2024.10.0'],
    imports: 'numpy, pandas, xarray',
  },
};
type Stack = (typeof STACKS)[keyof typeof STACKS];
const HOST_PYTHON = 'python3';

const round1 = (n: number) => Math.round(n * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const p50 = (xs: number[]) => round1(percentile(xs, 50) / 1000);

interface Ctx {
  engine: DockerEngine;
  ledger: Ledger;
  owner: string;
  scratch: string;
  repos: string[];
  logs: string[];
  uv: string | null;
  stack: Stack;
}

let projects = 0;

/** A new project (a new key) asking for `requirements`; an installable one has a package of its own. */
function project(c: Ctx, requirements: string[], tag: string, installable = false): string {
  const src = join(c.scratch, `src-${++projects}`);
  mkdirSync(join(src, 'tests'), { recursive: true });
  writeFileSync(join(src, 'requirements.txt'), `${requirements.join('\n')}\n# ${tag}\n`);
  writeFileSync(
    join(src, 'tests', 'test_it.py'),
    `import ${c.stack.imports}\n\n\ndef test_it():\n    assert numpy.ones(2).sum() == 2\n`,
  );
  if (installable) {
    mkdirSync(join(src, 'src', 'fixturepkg'), { recursive: true });
    writeFileSync(join(src, 'src', 'fixturepkg', '__init__.py'), 'VALUE = 1\n');
    writeFileSync(
      join(src, 'pyproject.toml'),
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "fixturepkg"\nversion = "0.1"\n',
    );
  }
  const repo = copyAsGitRepo(src, join(c.scratch, `repo-${projects}`), 'fixture');
  c.repos.push(repo);
  return repo;
}

/** One environment build of `repo` with the wheel cache at `cache`; its seconds. */
async function build(c: Ctx, repo: string, cache: string): Promise<number> {
  process.env.PIPER_WHEEL_CACHE = cache;
  const t0 = performance.now();
  const choice = await ensureEnvironment({
    engine: c.engine,
    ledger: c.ledger,
    repoRoot: repo,
    mode: 'auto',
    trustRecipe: false,
    owner: c.owner,
    log: (line) => c.logs.push(line),
  });
  const ms = performance.now() - t0;
  if (choice.status !== 'built') throw new Error(`ensureEnvironment gave ${choice.status}, not built`);
  const missing = (choice.shortfalls ?? []).filter((s) => s.kind === 'missing');
  if (missing.length) throw new Error(`shortfalls: ${JSON.stringify(missing)}`);
  return ms;
}

/**
 * A fresh venv on the host and `pip install` (or `uv pip install`) of `requirements` with `cache`.
 * pip writes every module's bytecode, as piper's image holds it (the sandbox cannot write it at run
 * time); uv does not unless asked (`uv-compiled`: `--compile-bytecode`).
 */
function hostInstall(c: Ctx, tool: Exclude<Arm, 'piper'>, requirements: string[], cache: string): number {
  const venv = mkdtempSync(join(c.scratch, 'venv-'));
  const t0 = performance.now();
  const env = { ...process.env, PIP_CONFIG_FILE: '/dev/null', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  if (tool === 'pip') {
    execFileSync(HOST_PYTHON, ['-m', 'venv', venv], { stdio: 'ignore' });
    execFileSync(
      join(venv, 'bin', 'python'),
      ['-m', 'pip', 'install', '-q', '--cache-dir', cache, ...requirements],
      {
        stdio: 'ignore',
        env,
      },
    );
  } else {
    execFileSync(c.uv!, ['venv', '-q', '--python', HOST_PYTHON, venv], { stdio: 'ignore', env });
    const compile = tool === 'uv-compiled' ? ['--compile-bytecode'] : [];
    const args = [
      'pip',
      'install',
      '-q',
      ...compile,
      '--python',
      join(venv, 'bin', 'python'),
      ...requirements,
    ];
    execFileSync(c.uv!, args, {
      stdio: 'ignore',
      env: { ...env, UV_CACHE_DIR: cache, UV_INDEX_URL: '', VIRTUAL_ENV: venv },
    });
  }
  const ms = performance.now() - t0;
  rmSync(venv, { recursive: true, force: true });
  return ms;
}

/** uv, installed into a venv of the bench's own, when pip can get it (else not measured). */
function installUv(scratch: string): string | null {
  try {
    const venv = join(scratch, 'uv-tool');
    execFileSync(HOST_PYTHON, ['-m', 'venv', venv], { stdio: 'ignore' });
    execFileSync(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '-q', 'uv'], {
      stdio: 'ignore',
      timeout: 120_000,
      env: { ...process.env, PIP_CONFIG_FILE: '/dev/null' },
    });
    return join(venv, 'bin', 'uv');
  } catch {
    return null;
  }
}

type Arm = 'piper' | 'pip' | 'uv' | 'uv-compiled';
type Cell = 'first cold' | 'first warm' | 'rebuild cold' | 'rebuild warm';

/**
 * One round, every arm interleaved: a first build and a rebuild after one changed dependency, each
 * with its cache cold (empty) and warm (filled by the same requirements once before).
 */
async function round(
  c: Ctx,
  r: number,
  samples: Record<Arm, Record<Cell, number[]>>,
  second: number[],
): Promise<void> {
  const dir = (name: string) => mkdtempSync(join(c.scratch, `${name}-`));
  const arms: Arm[] = c.uv ? ['piper', 'pip', 'uv', 'uv-compiled'] : ['piper', 'pip'];
  const run = async (arm: Arm, requirements: string[], cache: string, tag: string) =>
    arm === 'piper'
      ? build(c, project(c, requirements, `${tag} ${r}`), cache)
      : hostInstall(c, arm, requirements, cache);
  for (const arm of arms) {
    // Cold: an empty cache for the first build; an empty one again for the rebuild.
    const { first, changed } = c.stack;
    samples[arm]['first cold'].push(await run(arm, first, dir(`${arm}-cold`), 'first cold'));
    samples[arm]['rebuild cold'].push(await run(arm, changed, dir(`${arm}-cold`), 'rebuild cold'));
    // Warm: another project built both before; then the first build and the rebuild.
    const warm = dir(`${arm}-warm`);
    await run(arm, first, warm, 'prime');
    await run(arm, changed, warm, 'prime changed');
    samples[arm]['first warm'].push(await run(arm, first, warm, 'first warm'));
    samples[arm]['rebuild warm'].push(await run(arm, changed, warm, 'rebuild warm'));
    if (arm === 'piper') second.push(await secondCommit(c, r, warm));
  }
}

/**
 * An installable project built once (its dependency image kept), then one source file changed and
 * committed: the seconds until the new commit's environment is ready.
 */
async function secondCommit(c: Ctx, r: number, cache: string): Promise<number> {
  const repo = project(c, c.stack.first, `second commit ${r}`, true);
  await build(c, repo, cache);
  writeFileSync(join(repo, 'src', 'fixturepkg', '__init__.py'), 'VALUE = 2\n');
  const identity = { name: 'piper-bench', email: 'piper-bench@localhost' };
  gitInOwnRepo(repo, ['commit', '-q', '-a', '-m', 'one source file changed'], identity);
  return build(c, repo, cache);
}

const CELLS: Cell[] = ['first cold', 'first warm', 'rebuild cold', 'rebuild warm'];

/** The p50 seconds of every arm and cell, piper's ratios to the baselines, warm over cold. */
function summary(
  c: Ctx,
  engine: string,
  rounds: number,
  samples: Record<Arm, Record<Cell, number[]>>,
  second: number[],
) {
  const uv = !!c.uv;
  const cells = CELLS;
  const seconds = (arm: Arm) => Object.fromEntries(cells.map((k) => [k, p50(samples[arm][k])]));
  const ratios = (arm: Arm) =>
    Object.fromEntries(
      cells.map((k) => [k, ratio(percentile(samples.piper[k], 50), percentile(samples[arm][k], 50))]),
    );
  return {
    bench: 'wheel-cache',
    engine,
    fixture: { first: c.stack.first, changed: c.stack.changed },
    rounds,
    p50_s: {
      piper: seconds('piper'),
      pip: seconds('pip'),
      ...(uv ? { uv: seconds('uv'), 'uv-compiled': seconds('uv-compiled') } : {}),
    },
    piper_over_pip: ratios('pip'),
    ...(uv
      ? { piper_over_uv: ratios('uv'), piper_over_uv_compiled: ratios('uv-compiled') }
      : { uv: 'not measured: uv could not be installed' }),
    second_commit_s: { piper: p50(second), goal: 3 },
    warm_over_cold: {
      first: ratio(percentile(samples.piper['first warm'], 50), percentile(samples.piper['first cold'], 50)),
      rebuild: ratio(
        percentile(samples.piper['rebuild warm'], 50),
        percentile(samples.piper['rebuild cold'], 50),
      ),
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '2' },
      stack: { type: 'string', default: 'two' },
    },
  });
  const stack = STACKS[values.stack as keyof typeof STACKS];
  if (!stack) throw new Error(`--stack: one of ${Object.keys(STACKS).join(', ')}`);
  const rounds = Number(values.rounds);
  // pip's default index for every arm: the user's configuration would change the key and the sources.
  Object.assign(process.env, {
    PIP_INDEX_URL: '',
    PIP_EXTRA_INDEX_URL: '',
    PIP_FIND_LINKS: '',
    PIP_CONFIG_FILE: '/dev/null',
  });
  const { engine } = await connectEngine();
  const info = await engine.info();
  const scratch = mkdtempSync(join(tmpdir(), 'piper-bench-wheels-'));
  const c: Ctx = {
    engine,
    ledger: Ledger.open(join(scratch, 'ledger.db')),
    owner: formatOwner(currentOwner()),
    scratch,
    repos: [],
    logs: [],
    uv: installUv(scratch),
    stack,
  };
  const empty = () => Object.fromEntries(CELLS.map((k) => [k, [] as number[]])) as Record<Cell, number[]>;
  const samples = { piper: empty(), pip: empty(), uv: empty(), 'uv-compiled': empty() };
  const second: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      await round(c, r, samples, second);
      process.stderr.write(`\rround ${r + 1}/${rounds}`);
    }
    process.stderr.write('\n');
    const result = summary(c, `Docker ${info.version}`, rounds, samples, second);
    printTable([
      ...CELLS.map((k): [string, string] => [
        k,
        `piper ${p50(samples.piper[k])} s, pip ${p50(samples.pip[k])} s${c.uv ? `, uv ${p50(samples.uv[k])} s, uv compiled ${p50(samples['uv-compiled'][k])} s` : ''}`,
      ]),
      ['second commit', `piper ${p50(second)} s (goal ≤ 3 s)`],
    ]);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (c.logs.length) process.stderr.write(`\nlast build lines:\n${c.logs.slice(-20).join('\n')}\n`);
    throw error;
  } finally {
    c.ledger.close();
    await removeEnvImages(engine, c.repos);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every image a temp project left. */
async function removeEnvImages(engine: DockerEngine, repos: string[]): Promise<void> {
  for (const repo of repos) {
    const images = await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]);
    for (const image of images.sort((a, b) => b.created - a.created))
      await engine.removeImage(image.id).catch(() => undefined);
  }
}

await main();
