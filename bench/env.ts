// node dist/bench/env.js [--json] [--cold N] [--warm N] [--rounds N]
// Project environments (docs/architecture.md, "Environments"), two measurements, each side by side in this one process:
//   1. ensureEnvironment on a copy of the debian-src fixture (src layout; attrs and packaging from
//      Debian's packages): a cold build (`rebuild`, which refetches the package lists), then a first
//      build of the project changed (a new key; the lists and .debs the last build fetched reused),
//      against a warm reuse (`auto`, a cache hit), interleaved; reported in seconds and as cold / warm.
//   2. run_test on a generated 30-test src-layout project that imports attrs and packaging, in its
//      environment image (warm: the pre-started workspace pool, as `fix` sets it up; cold: a fresh
//      container per call), against the same tests on the host in a `python3 -m venv
//      --system-site-packages` venv over Debian's python3-attr/-packaging/-pytest with PYTHONPATH=src.
//      Interleaved round by round. Target: warm run_test p50 ≤ 1.5 × host p50.
// The user's own pip configuration is cleared for the builds (the key and the sources would change
// with it); every environment image made here is removed at the end, by its project label.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTest, runTestTool } from '../primitives/tools/run-test/tool.js';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { DockerEngine } from '../runtime/engine/docker-engine.js';
import { ensureEnvironment, type EnvMode, type EnvironmentChoice } from '../runtime/env/choose/ensure.js';
import { ENV_LABEL, projectId } from '../runtime/env/floor/names.js';
import { copyAsGitRepo } from '../runtime/host/git.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { packageRoot } from '../runtime/package-root.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { Sandbox } from '../runtime/sandbox/sandbox.js';
import { percentile, printTable } from './stats.js';
import { createRun } from '../runtime/ledger/runs.js';

const HOST_PYTHON = '/usr/bin/python3';
const TESTS = 30;
const TARGET = '-q tests/';

/** A src-layout project whose 30 tests need attrs and packaging (and nothing from its metadata). */
function writeProject(dir: string): void {
  const files: Record<string, string> = {
    'pyproject.toml':
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n' +
      '[project]\nname = "shelf"\nversion = "1.0.0"\ndependencies = ["attrs>=22.1", "packaging>=23"]\n\n' +
      '[project.optional-dependencies]\ntest = ["pytest>=7"]\n',
    'src/shelf/__init__.py':
      'import attrs\nfrom packaging.specifiers import SpecifierSet\nfrom packaging.version import Version\n\n\n' +
      '@attrs.frozen\nclass Item:\n    name: str\n    version: str\n    qty: int = 0\n\n' +
      '    def bump(self, n: int) -> "Item":\n        return attrs.evolve(self, qty=self.qty + n)\n\n\n' +
      'def newest(items):\n    return max(items, key=lambda i: Version(i.version))\n\n\n' +
      'def allowed(items, spec):\n    s = SpecifierSet(spec)\n    return [i for i in items if i.version in s]\n',
  };
  for (let f = 0; f < 3; f++) {
    const tests = Array.from(
      { length: TESTS / 3 },
      (_, i) =>
        `def test_case_${i}():\n` +
        `    items = [Item("a", "1.${i}"), Item("b", "1.${i + f + 1}"), Item("c", "0.${i}")]\n` +
        `    assert newest(items).name == "b"\n` +
        `    assert [x.name for x in allowed(items, ">=1.0")] == ["a", "b"]\n` +
        `    assert items[0].bump(${f}).qty == ${f}\n` +
        `    assert attrs.asdict(items[2]) == {"name": "c", "version": "0.${i}", "qty": 0}\n`,
    ).join('\n\n');
    files[`tests/test_shelf_${f}.py`] =
      `import attrs\n\nfrom shelf import Item, allowed, newest\n\n\n${tests}`;
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/**
 * The host baseline's interpreter: a venv that sees Debian's python3-attr, -packaging and -pytest
 * (no pip in it: nothing is installed there, and Debian's ensurepip needs python3-venv).
 */
function hostVenv(dir: string): string {
  execFileSync(HOST_PYTHON, ['-m', 'venv', '--system-site-packages', '--without-pip', dir], {
    stdio: 'ignore',
  });
  const python = join(dir, 'bin', 'python');
  try {
    execFileSync(python, ['-c', 'import attrs, packaging, pytest'], { stdio: 'pipe' });
  } catch {
    throw new Error(
      `${HOST_PYTHON} lacks attrs, packaging or pytest: apt-get install python3-attr python3-packaging python3-pytest`,
    );
  }
  return python;
}

function hostPytest(python: string, repo: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/'], {
      cwd: repo,
      env: { ...process.env, PYTHONPATH: 'src', PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && out.includes(`${TESTS} passed`)
        ? resolve(performance.now() - t0)
        : reject(new Error(`host pytest failed (${code}): ${out.slice(-600)}`)),
    );
  });
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** What both measurements share, and what the end of the bench removes. */
interface Bench {
  engine: DockerEngine;
  ledger: Ledger;
  owner: string;
  scratch: string;
  /** The temp projects; their environment images go at the end. */
  repos: string[];
  sandboxes: Sandbox[];
  /** The builds' progress lines, shown only when something fails. */
  logs: string[];
}

async function ensure(b: Bench, repoRoot: string, mode: EnvMode, want: EnvironmentChoice['status']) {
  const t0 = performance.now();
  const choice = await ensureEnvironment({
    engine: b.engine,
    ledger: b.ledger,
    repoRoot,
    mode,
    trustRecipe: false,
    owner: b.owner,
    log: (line) => b.logs.push(line),
  });
  const ms = performance.now() - t0;
  if (choice.status !== want)
    throw new Error(`ensureEnvironment(${mode}) gave ${choice.status}, not ${want}`);
  return { choice, ms };
}

/** 1. Cold builds (`rebuild`) of the debian-src fixture, each followed by its share of cache hits. */
async function buildVsReuse(b: Bench, coldBuilds: number, warmHits: number) {
  const fixture = copyAsGitRepo(
    join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'),
    join(b.scratch, 'debian-src'),
    'fixture',
  );
  b.repos.push(fixture);
  const cold: number[] = [];
  const cached: number[] = [];
  const warm: number[] = [];
  let steps: Record<string, number> = {};
  let imageMb = 0;
  for (let c = 0; c < coldBuilds; c++) {
    const built = await ensure(b, fixture, 'rebuild', 'built');
    cold.push(built.ms);
    // A first build of a changed project (a new key) while the package lists and .debs the last
    // build fetched are fresh: what a user's next project, or an edited pyproject.toml, waits.
    const pyproject = join(fixture, 'pyproject.toml');
    writeFileSync(
      pyproject,
      readFileSync(pyproject, 'utf8').replace(/^version = .*$/m, `version = "0.3.${c + 2}"`),
    );
    const first = await ensure(b, fixture, 'auto', 'built');
    cached.push(first.ms);
    steps = whereTheTimeGoes(b.ledger, first.ms);
    imageMb = Math.round(((await b.engine.inspectImage(built.choice.image))?.size ?? 0) / 1e6);
    const share = Math.ceil((warmHits - warm.length) / (coldBuilds - c));
    for (let w = 0; w < share; w++) warm.push((await ensure(b, fixture, 'auto', 'hit')).ms);
    process.stderr.write(`\rbuild ${c + 1}/${coldBuilds}`);
  }
  process.stderr.write('\n');
  return { cold, cached, warm, imageMb, steps };
}

/**
 * The last build's recorded steps (their seconds summed by name, from its environments row), and
 * `between steps`: the rest of its time — containers created, started and removed, files put and
 * read, commits, the layer check.
 */
function whereTheTimeGoes(ledger: Ledger, ms: number): Record<string, number> {
  const row = ledger.database.prepare('SELECT steps FROM environments ORDER BY id DESC LIMIT 1').get() as {
    steps: string;
  };
  const out: Record<string, number> = {};
  for (const step of JSON.parse(row.steps) as Array<{ name: string; seconds: number }>)
    out[step.name] = round1((out[step.name] ?? 0) + step.seconds);
  out['between steps'] = round1(ms / 1000 - Object.values(out).reduce((a, b) => a + b, 0));
  return out;
}

/** 2. run_test in the project's environment (pooled and fresh containers) against a host venv. */
async function runTestVsHost(b: Bench, rounds: number) {
  const project = join(b.scratch, 'shelf');
  writeProject(join(b.scratch, 'shelf-src'));
  copyAsGitRepo(join(b.scratch, 'shelf-src'), project, 'shelf');
  b.repos.push(project);
  const python = hostVenv(join(b.scratch, 'venv'));
  const { choice } = await ensure(b, project, 'auto', 'built');
  // As core/fix/run-fix.ts sets it up: one pre-started workspace container with run_test's limits.
  const pooled = new Sandbox(b.engine, {
    image: choice.image,
    envKey: choice.key,
    workspacePoolSize: 1,
    workspacePoolLimits: runTestTool.limits,
  });
  const fresh = new Sandbox(b.engine, { image: choice.image, envKey: choice.key });
  b.sandboxes.push(pooled, fresh);
  await pooled.init();
  await fresh.init();
  const pool = (pooled as unknown as { workspacePool: { warm(): Promise<void> } }).workspacePool;
  const runId = createRun(b.ledger, { kind: runTestTool.name, repo: project, owner: b.owner });
  const timed = async (sandbox: Sandbox) => {
    const ctx = {
      sandbox,
      ledger: b.ledger,
      runId,
      owner: b.owner,
      origin: 'user' as const,
      repoRoot: project,
    };
    const t0 = performance.now();
    const { callId, result } = await runTest(ctx, { target: TARGET });
    const ms = performance.now() - t0;
    if (!result.passed || result.counts?.passed !== TESTS)
      throw new Error(`run_test failed: ${result.output}`);
    return { ms, callId };
  };
  // Whether a call took the pre-started container, as the ledger recorded it.
  const tookPooled = (callId: string) =>
    (
      b.ledger.database.prepare('SELECT warm FROM executions WHERE call_id = ?').get(callId) as
        { warm: number } | undefined
    )?.warm === 1;
  const samples = { host: [] as number[], warm: [] as number[], cold: [] as number[] };
  let pooledHits = 0;
  // One unmeasured round of each arm first: page caches, the engine's first-call costs.
  await hostPytest(python, project);
  await timed(pooled);
  await timed(fresh);
  for (let i = 0; i < rounds; i++) {
    samples.host.push(await hostPytest(python, project));
    // The pool refills after a call, as it does while the model thinks in a real run.
    await pool.warm();
    const warm = await timed(pooled);
    samples.warm.push(warm.ms);
    if (tookPooled(warm.callId)) pooledHits++;
    samples.cold.push((await timed(fresh)).ms);
    process.stderr.write(`\rround ${i + 1}/${rounds}`);
  }
  process.stderr.write('\n');
  return { ...samples, pooledHitRate: pooledHits / rounds };
}

/** The build-versus-reuse and run_test-versus-host numbers, with the ratio against the target. */
function envResult(
  engine: string,
  { coldBuilds, warmHits, rounds }: { coldBuilds: number; warmHits: number; rounds: number },
  env: Awaited<ReturnType<typeof buildVsReuse>>,
  rt: Awaited<ReturnType<typeof runTestVsHost>>,
) {
  return {
    engine,
    env_cold_builds: coldBuilds,
    env_warm_hits: warmHits,
    env_cold_build_s: env.cold.map((ms) => round1(ms / 1000)),
    env_cold_build_p50_s: round1(percentile(env.cold, 50) / 1000),
    env_cached_build_s: env.cached.map((ms) => round1(ms / 1000)),
    env_cached_build_p50_s: round1(percentile(env.cached, 50) / 1000),
    env_cached_build_steps_s: env.steps,
    env_warm_hit_p50_ms: percentile(env.warm, 50),
    env_warm_hit_p90_ms: percentile(env.warm, 90),
    env_cold_over_warm: Math.round(percentile(env.cold, 50) / percentile(env.warm, 50)),
    env_image_mb: env.imageMb,
    rounds,
    tests: TESTS,
    run_test_warm_p50_ms: percentile(rt.warm, 50),
    run_test_warm_p90_ms: percentile(rt.warm, 90),
    run_test_warm_hit_rate: rt.pooledHitRate,
    run_test_cold_p50_ms: percentile(rt.cold, 50),
    run_test_cold_p90_ms: percentile(rt.cold, 90),
    host_venv_pytest_p50_ms: percentile(rt.host, 50),
    host_venv_pytest_p90_ms: percentile(rt.host, 90),
    run_test_warm_over_host: ratio(percentile(rt.warm, 50), percentile(rt.host, 50)),
    run_test_cold_over_host: ratio(percentile(rt.cold, 50), percentile(rt.host, 50)),
    target: { run_test_warm_over_host: 1.5 },
  };
}

function printEnvTable(result: ReturnType<typeof envResult>): void {
  printTable([
    ['env cold build, lists refetched (s, each)', result.env_cold_build_s.join(' / ')],
    ['env first build, caches fresh (s, each)', result.env_cached_build_s.join(' / ')],
    [
      'the last first build, by step (s)',
      Object.entries(result.env_cached_build_steps_s)
        .map(([name, s]) => `${name} ${s}`)
        .join(', '),
    ],
    ['env warm hit p50 / p90 (ms)', `${result.env_warm_hit_p50_ms} / ${result.env_warm_hit_p90_ms}`],
    ['env cold / warm', `${result.env_cold_over_warm} ×`],
    ['env image (MB)', result.env_image_mb],
    ['run_test warm p50 / p90 (ms)', `${result.run_test_warm_p50_ms} / ${result.run_test_warm_p90_ms}`],
    ['run_test warm: pooled container taken', result.run_test_warm_hit_rate],
    ['run_test cold p50 / p90 (ms)', `${result.run_test_cold_p50_ms} / ${result.run_test_cold_p90_ms}`],
    [
      'host venv pytest p50 / p90 (ms)',
      `${result.host_venv_pytest_p50_ms} / ${result.host_venv_pytest_p90_ms}`,
    ],
    ['run_test warm / host', `${result.run_test_warm_over_host} × (target ≤ 1.5)`],
    ['run_test cold / host', `${result.run_test_cold_over_host} ×`],
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      cold: { type: 'string', default: '2' },
      warm: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '10' },
    },
  });
  const coldBuilds = Number(values.cold);
  const warmHits = Number(values.warm);
  const rounds = Number(values.rounds);
  // The user's pip configuration would enter the key and the sources; Debian's packages serve here.
  Object.assign(process.env, {
    PIP_INDEX_URL: '',
    PIP_EXTRA_INDEX_URL: '',
    PIP_FIND_LINKS: '',
    PIP_CONFIG_FILE: '/dev/null',
  });

  const { engine } = await connectEngine();
  const info = await engine.info();
  const scratch = mkdtempSync(join(tmpdir(), 'piper-bench-env-'));
  const repos: string[] = [];
  const sandboxes: Sandbox[] = [];
  const logs: string[] = [];
  let ledger: Ledger | null = null;
  try {
    ledger = Ledger.open(join(scratch, 'ledger.db'));
    const b: Bench = { engine, ledger, owner: formatOwner(currentOwner()), scratch, repos, sandboxes, logs };
    const env = await buildVsReuse(b, coldBuilds, warmHits);
    const rt = await runTestVsHost(b, rounds);

    const result = envResult(`Docker ${info.version}`, { coldBuilds, warmHits, rounds }, env, rt);
    printEnvTable(result);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (logs.length) process.stderr.write(`\nlast build lines:\n${logs.slice(-20).join('\n')}\n`);
    throw error;
  } finally {
    for (const sandbox of sandboxes) await sandbox.close();
    ledger?.close();
    await removeEnvImages(engine, repos);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every image a temp project left (tagged, or untagged by a rebuild), newest first. */
async function removeEnvImages(engine: DockerEngine, repos: string[]): Promise<void> {
  for (const repo of repos) {
    const images = await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]);
    for (const image of images.sort((a, b) => b.created - a.created))
      await engine.removeImage(image.id).catch(() => undefined);
  }
}

await main();
