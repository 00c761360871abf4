// node dist/bench/wheel-cache.js [--json] [--rounds N]
// The host's wheel cache (runtime/env/build/network/wheel-cache.ts): an environment's first build,
// and its rebuild after one changed dependency, of a 2-dependency fixture (numpy and attrs, wheels
// from pip's default index), with the wheel cache cold (an empty PIPER_WHEEL_CACHE) and warm (the
// same requirements built once before, by another project). The baseline, side by side in each round:
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
import { Ledger } from '../runtime/ledger/ledger.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { percentile, printTable } from './stats.js';

const FIRST = ['numpy==2.1.3', 'attrs==25.3.0'];
/** One changed dependency. */
const CHANGED = ['numpy==2.1.3', 'attrs==24.3.0'];
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
}

let projects = 0;

/** A new project (a new key) asking for `requirements`. */
function project(c: Ctx, requirements: string[], tag: string): string {
  const src = join(c.scratch, `src-${++projects}`);
  mkdirSync(join(src, 'tests'), { recursive: true });
  writeFileSync(join(src, 'requirements.txt'), `${requirements.join('\n')}\n# ${tag}\n`);
  writeFileSync(
    join(src, 'tests', 'test_it.py'),
    'import attrs, numpy\n\n\ndef test_it():\n    assert numpy.ones(2).sum() == 2\n',
  );
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

/** A fresh venv on the host and `pip install` (or `uv pip install`) of `requirements` with `cache`. */
function hostInstall(c: Ctx, tool: 'pip' | 'uv', requirements: string[], cache: string): number {
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
    execFileSync(c.uv!, ['pip', 'install', '-q', '--python', join(venv, 'bin', 'python'), ...requirements], {
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

type Arm = 'piper' | 'pip' | 'uv';
type Cell = 'first cold' | 'first warm' | 'rebuild cold' | 'rebuild warm';

/**
 * One round, every arm interleaved: a first build and a rebuild after one changed dependency, each
 * with its cache cold (empty) and warm (filled by the same requirements once before).
 */
async function round(c: Ctx, r: number, samples: Record<Arm, Record<Cell, number[]>>): Promise<void> {
  const dir = (name: string) => mkdtempSync(join(c.scratch, `${name}-`));
  const arms: Arm[] = c.uv ? ['piper', 'pip', 'uv'] : ['piper', 'pip'];
  const run = async (arm: Arm, requirements: string[], cache: string, tag: string) =>
    arm === 'piper'
      ? build(c, project(c, requirements, `${tag} ${r}`), cache)
      : hostInstall(c, arm, requirements, cache);
  for (const arm of arms) {
    // Cold: an empty cache for the first build; an empty one again for the rebuild.
    samples[arm]['first cold'].push(await run(arm, FIRST, dir(`${arm}-cold`), 'first cold'));
    samples[arm]['rebuild cold'].push(await run(arm, CHANGED, dir(`${arm}-cold`), 'rebuild cold'));
    // Warm: another project built both before; then the first build and the rebuild.
    const warm = dir(`${arm}-warm`);
    await run(arm, FIRST, warm, 'prime');
    await run(arm, CHANGED, warm, 'prime changed');
    samples[arm]['first warm'].push(await run(arm, FIRST, warm, 'first warm'));
    samples[arm]['rebuild warm'].push(await run(arm, CHANGED, warm, 'rebuild warm'));
  }
}

const CELLS: Cell[] = ['first cold', 'first warm', 'rebuild cold', 'rebuild warm'];

/** The p50 seconds of every arm and cell, piper's ratios to the baselines, warm over cold. */
function summary(engine: string, rounds: number, samples: Record<Arm, Record<Cell, number[]>>, uv: boolean) {
  const cells = CELLS;
  const seconds = (arm: Arm) => Object.fromEntries(cells.map((k) => [k, p50(samples[arm][k])]));
  const ratios = (arm: Arm) =>
    Object.fromEntries(
      cells.map((k) => [k, ratio(percentile(samples.piper[k], 50), percentile(samples[arm][k], 50))]),
    );
  return {
    bench: 'wheel-cache',
    engine,
    fixture: { first: FIRST, changed: CHANGED },
    rounds,
    p50_s: { piper: seconds('piper'), pip: seconds('pip'), ...(uv ? { uv: seconds('uv') } : {}) },
    piper_over_pip: ratios('pip'),
    ...(uv ? { piper_over_uv: ratios('uv') } : { uv: 'not measured: uv could not be installed' }),
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
    options: { json: { type: 'boolean', default: false }, rounds: { type: 'string', default: '2' } },
  });
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
  };
  const cells = CELLS;
  const empty = () => Object.fromEntries(cells.map((k) => [k, [] as number[]])) as Record<Cell, number[]>;
  const samples: Record<Arm, Record<Cell, number[]>> = { piper: empty(), pip: empty(), uv: empty() };
  try {
    for (let r = 0; r < rounds; r++) {
      await round(c, r, samples);
      process.stderr.write(`\rround ${r + 1}/${rounds}`);
    }
    process.stderr.write('\n');
    const result = summary(`Docker ${info.version}`, rounds, samples, !!c.uv);
    printTable(
      cells.map((k) => [
        k,
        `piper ${p50(samples.piper[k])} s, pip ${p50(samples.pip[k])} s${c.uv ? `, uv ${p50(samples.uv[k])} s` : ''}`,
      ]),
    );
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
