// node dist/bench/js-env.js [--json] [--rounds N]
// A JavaScript project's environment against `npm ci` on the host, side by side in this one process.
// The project: a package.json of seven pinned dependencies (about 30 packages in its tree, none with
// install scripts), its package-lock.json made on the host by npm itself from the user's registry
// (--package-lock-only: metadata only, no package code), a source file and a git history. Each
// round, interleaved, which arm goes first alternating:
//   first build    the project's version bumped (a new lockfile, so a new key): the planner and
//                  ensureEnvironment as a command runs them, the image built (download with scripts
//                  off, then the offline phase), from no cache of piper's
//   npm ci cold    `npm ci` of the same tree on the host with a cache directory of its own, new
//   second commit  a source file changed and committed (the lockfile not): the planner and
//                  ensureEnvironment again, the image of the key reused
//   npm ci warm    `npm ci` again with that cache directory (node_modules removed by npm ci itself)
// Reported: each arm's p50 and first build / npm ci cold, second commit / npm ci warm. The registry
// is the user's npm configuration, for npm and piper alike. Every environment image made here is
// removed at the end, by its project label (the toolchain image, shared by every project, is kept).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { DockerEngine } from '../runtime/engine/docker-engine.js';
import { ensureEnvironment, type EnvironmentChoice } from '../runtime/env/choose/ensure.js';
import { ENV_LABEL, projectId } from '../runtime/env/floor/names.js';
import { planJsEnvironment } from '../runtime/env/js/plan/plan-js.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { percentile, printTable } from './stats.js';

const DEPENDENCIES = {
  chalk: '4.1.2',
  commander: '12.1.0',
  debug: '4.3.7',
  minimist: '1.2.8',
  semver: '7.6.3',
  uuid: '9.0.1',
  yargs: '17.7.2',
};

const round1 = (n: number) => Math.round(n * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

function git(repo: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=bench@example.invalid', '-c', 'user.name=bench', ...args], {
    cwd: repo,
    stdio: 'ignore',
  });
}

function manifest(version: string): string {
  return `${JSON.stringify({ name: 'shelf-cli', version, private: true, dependencies: DEPENDENCIES }, null, 2)}\n`;
}

/** The lockfile npm makes for the manifest as it stands: metadata from the user's registry only. */
function lock(repo: string): void {
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: repo,
    stdio: 'ignore',
  });
}

function writeProject(repo: string): number {
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, '.nvmrc'), '20\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
  writeFileSync(join(repo, 'package.json'), manifest('1.0.0'));
  writeFileSync(
    join(repo, 'src', 'index.js'),
    "const semver = require('semver');\nmodule.exports = (v) => semver.valid(v);\n",
  );
  lock(repo);
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'init');
  const locked = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(locked.packages).filter((p) => p !== '').length;
}

interface Bench {
  engine: DockerEngine;
  ledger: Ledger;
  owner: string;
  repo: string;
  logs: string[];
}

/** The planner and ensureEnvironment, as a command runs them before its first sandbox. */
async function ensure(b: Bench, want: EnvironmentChoice['status']): Promise<number> {
  const t0 = performance.now();
  const choice = await ensureEnvironment({
    engine: b.engine,
    ledger: b.ledger,
    repoRoot: b.repo,
    mode: 'auto',
    trustRecipe: false,
    owner: b.owner,
    log: (line) => b.logs.push(line),
    language: 'javascript',
    jsPlan: planJsEnvironment(b.repo),
  });
  const ms = performance.now() - t0;
  if (choice.status !== want) throw new Error(`the environment was ${choice.status}, not ${want}`);
  return ms;
}

/** `npm ci` of the project on the host with `cache` as npm's cache directory; the tree it made removed. */
function npmCi(repo: string, cache: string): number {
  const t0 = performance.now();
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--cache', cache], { cwd: repo, stdio: 'ignore' });
  const ms = performance.now() - t0;
  rmSync(join(repo, 'node_modules'), { recursive: true, force: true });
  return ms;
}

type Arm = 'first' | 'ciCold' | 'second' | 'ciWarm';

async function rounds(b: Bench, scratch: string, count: number): Promise<Record<Arm, number[]>> {
  const samples: Record<Arm, number[]> = { first: [], ciCold: [], second: [], ciWarm: [] };
  for (let r = 0; r < count; r++) {
    // A new version: a new lockfile (its root entry), so a new key; made before the clock starts.
    writeFileSync(join(b.repo, 'package.json'), manifest(`1.0.${r + 1}`));
    lock(b.repo);
    git(b.repo, 'commit', '-qam', `release 1.0.${r + 1}`);
    const cache = join(scratch, `npm-cache-${r}`);
    const cold: Array<() => Promise<void>> = [
      async () => void samples.first.push(await ensure(b, 'built')),
      async () => void samples.ciCold.push(npmCi(b.repo, cache)),
    ];
    for (const arm of r % 2 === 0 ? cold : cold.reverse()) await arm();
    // The next commit changes code, not the declarations.
    writeFileSync(
      join(b.repo, 'src', 'index.js'),
      `// commit ${r}\n${readFileSync(join(b.repo, 'src', 'index.js'), 'utf8')}`,
    );
    git(b.repo, 'commit', '-qam', `change ${r}`);
    const warm: Array<() => Promise<void>> = [
      async () => void samples.second.push(await ensure(b, 'hit')),
      async () => void samples.ciWarm.push(npmCi(b.repo, cache)),
    ];
    for (const arm of r % 2 === 0 ? warm : warm.reverse()) await arm();
    process.stderr.write(`\rround ${r + 1}/${count}`);
  }
  process.stderr.write('\n');
  return samples;
}

/**
 * The last build's recorded steps (their seconds summed by name, from its environments row), and
 * `between steps`: the rest of its time (the plan, the toolchain's inspect, containers, commits).
 */
function whereTheTimeGoes(ledger: Ledger, ms: number): Record<string, number> {
  const row = ledger.database
    .prepare("SELECT steps FROM environments WHERE status = 'built' ORDER BY id DESC LIMIT 1")
    .get() as { steps: string };
  const out: Record<string, number> = {};
  for (const step of JSON.parse(row.steps) as Array<{ name: string; seconds: number }>)
    out[step.name] = round1((out[step.name] ?? 0) + step.seconds);
  out['between steps'] = round1(ms / 1000 - Object.values(out).reduce((a, b) => a + b, 0));
  return out;
}

function resultOf(
  engine: string,
  packages: number,
  count: number,
  s: Record<Arm, number[]>,
  steps: Record<string, number>,
) {
  const p50 = (xs: number[]) => percentile(xs, 50);
  const seconds = (xs: number[]) => xs.map((ms) => round1(ms / 1000));
  return {
    engine,
    npm: execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim(),
    packages,
    rounds: count,
    first_build_p50_s: round1(p50(s.first) / 1000),
    first_build_s: seconds(s.first),
    first_build_steps_s: steps,
    npm_ci_cold_p50_s: round1(p50(s.ciCold) / 1000),
    npm_ci_cold_s: seconds(s.ciCold),
    second_commit_p50_ms: p50(s.second),
    second_commit_ms: s.second.map(round1),
    npm_ci_warm_p50_ms: p50(s.ciWarm),
    npm_ci_warm_ms: s.ciWarm.map(round1),
    first_build_over_npm_ci_cold: ratio(p50(s.first), p50(s.ciCold)),
    second_commit_over_npm_ci_warm: ratio(p50(s.second), p50(s.ciWarm)),
  };
}

function printResult(r: ReturnType<typeof resultOf>): void {
  printTable([
    ['project', `${r.packages} locked packages (npm ${r.npm} on the host)`],
    ['first build (new key), each (s)', r.first_build_s.join(' / ')],
    [
      'the last first build, by step (s)',
      Object.entries(r.first_build_steps_s)
        .map(([name, sec]) => `${name} ${sec}`)
        .join(', '),
    ],
    ['npm ci, fresh cache, each (s)', r.npm_ci_cold_s.join(' / ')],
    [
      'first build / npm ci cold (p50)',
      `${r.first_build_p50_s} / ${r.npm_ci_cold_p50_s} s = ${r.first_build_over_npm_ci_cold} ×`,
    ],
    ['second commit (same lockfile), each (ms)', r.second_commit_ms.join(' / ')],
    ['npm ci, warm cache, each (ms)', r.npm_ci_warm_ms.join(' / ')],
    [
      'second commit / npm ci warm (p50)',
      `${r.second_commit_p50_ms} / ${r.npm_ci_warm_p50_ms} ms = ${r.second_commit_over_npm_ci_warm} ×`,
    ],
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, rounds: { type: 'string', default: '3' } },
  });
  const count = Number(values.rounds);
  const { engine } = await connectEngine();
  const info = await engine.info();
  const scratch = mkdtempSync(join(tmpdir(), 'piper-bench-js-env-'));
  const repo = join(scratch, 'shelf-cli');
  const logs: string[] = [];
  let ledger: Ledger | null = null;
  try {
    const packages = writeProject(repo);
    ledger = Ledger.open(join(scratch, 'ledger.db'));
    const b: Bench = { engine, ledger, owner: formatOwner(currentOwner()), repo, logs };
    const samples = await rounds(b, scratch, count);
    const steps = whereTheTimeGoes(ledger, samples.first.at(-1)!);
    const result = resultOf(`Docker ${info.version}`, packages, count, samples, steps);
    printResult(result);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (logs.length) process.stderr.write(`\nlast build lines:\n${logs.slice(-20).join('\n')}\n`);
    throw error;
  } finally {
    ledger?.close();
    await removeEnvImages(engine, repo);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every image the project left, newest first (each build's parent layers go with it). */
async function removeEnvImages(engine: DockerEngine, repo: string): Promise<void> {
  const images = await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]);
  for (const image of images.sort((a, b) => b.created - a.created))
    await engine.removeImage(image.id).catch(() => undefined);
}

await main();
