// node dist/bench/run-test.js [--json] [--rounds N] [--host-python PATH] [--baseline-cli PATH]
// run_test (a repo snapshot as a tar stream into a fresh hardened container, real pytest there)
// against the host's own `/usr/bin/python3 -m pytest` (Debian's python3-pytest, the same pytest
// the sandbox image carries) on the same generated 30-test repository, side by side, interleaved:
//   pooled    the primitive in this process, served by a pre-started container (as in a `fix` run)
//   one-shot  `piper-agent run-test tests/ --json`, a fresh process: connect, sweep, environment,
//             snapshot, and the container kept warm by the previous round's command (claimed, used,
//             replaced by a fresh one for the next: runtime/sandbox/warm-container.ts)
//   no warm   the same with PIPER_WARM_IDLE_S=0: its own container prestarted while it plans the call
//   floor     `piper-agent run-test --help` (Node's start and the command's code loaded) plus the
//             pooled p50: what a one-shot command cannot go below without a process kept running
//   baseline  with --baseline-cli, the same one-shot command of another build (bin/piper-agent.js of
//             a checkout without the overlap of planning and container start), in the same rounds: what the overlap bought
// Targets: pooled p50 ≤ 2 × host pytest p50; one-shot p50 ≤ 1.5 × host pytest p50 (a one-shot command costs at most half a pytest
// run more than pytest itself).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runTest, runTestTool } from '../primitives/tools/run-test/tool.js';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { Sandbox } from '../runtime/sandbox/sandbox.js';
import { percentile, printTable } from './stats.js';
import { createRun } from '../runtime/ledger/runs.js';

const CLI = fileURLToPath(new URL('../../bin/piper-agent.js', import.meta.url));

function makeRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'piper-bench-rt-'));
  mkdirSync(join(repo, 'shapes'));
  mkdirSync(join(repo, 'tests'));
  writeFileSync(join(repo, 'conftest.py'), '');
  writeFileSync(join(repo, 'shapes', '__init__.py'), '');
  writeFileSync(
    join(repo, 'shapes', 'geometry.py'),
    'import math\n\ndef area(r):\n    return math.pi * r * r\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n',
  );
  for (let f = 0; f < 3; f++) {
    const tests = Array.from(
      { length: 10 },
      (_, i) =>
        `def test_case_${i}():\n    assert perimeter(${i}, ${f}) == 2 * (${i} + ${f})\n    assert area(${i}) >= 0\n`,
    ).join('\n');
    writeFileSync(
      join(repo, 'tests', `test_geometry_${f}.py`),
      `from shapes.geometry import area, perimeter\n\n${tests}`,
    );
  }
  return repo;
}

function hostPytest(python: string, repo: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/'], {
      cwd: repo,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && /30 passed/.test(out)
        ? resolve(performance.now() - t0)
        : reject(
            new Error(
              `host pytest failed (${code}): ${out.slice(-400)}\n(install Debian's python3-pytest: apt-get install python3-pytest)`,
            ),
          ),
    );
  });
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** `piper-agent run-test tests/ --json` in a fresh process, from its spawn to its exit. */
function oneShotRunTest(repo: string, cli = CLI, env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, 'run-test', 'tests/', '--repo', repo, '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const passed =
        code === 0 && (JSON.parse(out || '{}') as { counts?: { passed?: number } }).counts?.passed === 30;
      if (passed) resolve(performance.now() - t0);
      else reject(new Error(`one-shot run-test failed (${code}): ${err.slice(-400)} ${out.slice(-400)}`));
    });
  });
}

/** `piper-agent run-test --help` in a fresh process: Node's start and the command's code loaded, nothing run. */
function cliLoad(cli = CLI): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, 'run-test', '--help'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`run-test --help exited ${code}`)),
    );
  });
}

type RunTestSamples = {
  load: number[];
  sandboxed: number[];
  host: number[];
  oneShot: number[];
  noWarm: number[];
  baseline: number[];
};

/** The percentiles and ratios against host pytest (and the baseline CLI when one was given). */
function runTestResult(
  rounds: number,
  { load, sandboxed, host, oneShot, noWarm, baseline }: RunTestSamples,
  baselineCli: string | undefined,
) {
  // What no one-shot command goes below: a process that loads the command's code, then the
  // primitive's own time on a pre-started container (the engine's start-to-exit included).
  const floor = percentile(load, 50) + percentile(sandboxed, 50);
  return {
    rounds,
    tests: 30,
    run_test_p50_ms: percentile(sandboxed, 50),
    run_test_p95_ms: percentile(sandboxed, 95),
    host_pytest_p50_ms: percentile(host, 50),
    run_test_over_host: ratio(percentile(sandboxed, 50), percentile(host, 50)),
    one_shot_run_test_p50_ms: percentile(oneShot, 50),
    one_shot_run_test_p95_ms: percentile(oneShot, 95),
    one_shot_over_host: ratio(percentile(oneShot, 50), percentile(host, 50)),
    cli_load_p50_ms: percentile(load, 50),
    one_shot_floor_ms: Math.round(floor * 10) / 10,
    one_shot_floor_over_host: ratio(floor, percentile(host, 50)),
    one_shot_no_warm_p50_ms: percentile(noWarm, 50),
    one_shot_no_warm_over_host: ratio(percentile(noWarm, 50), percentile(host, 50)),
    ...(baselineCli
      ? {
          one_shot_baseline_p50_ms: percentile(baseline, 50),
          one_shot_baseline_over_host: ratio(percentile(baseline, 50), percentile(host, 50)),
          one_shot_over_baseline: ratio(percentile(oneShot, 50), percentile(baseline, 50)),
        }
      : {}),
    target: 2,
    one_shot_target: 1.5,
  };
}

function printRunTestTable(result: ReturnType<typeof runTestResult>, baselineCli: string | undefined): void {
  printTable([
    ['run_test p50 / p95 (ms)', `${result.run_test_p50_ms} / ${result.run_test_p95_ms}`],
    ['host pytest p50 (ms)', result.host_pytest_p50_ms],
    ['run_test / host pytest', `${result.run_test_over_host} × (target ≤ 2)`],
    [
      'one-shot run-test p50 / p95 (ms)',
      `${result.one_shot_run_test_p50_ms} / ${result.one_shot_run_test_p95_ms}`,
    ],
    ['one-shot run-test / host pytest', `${result.one_shot_over_host} × (target ≤ 1.5)`],
    [
      'one-shot floor: `run-test --help` + run_test (ms)',
      `${result.cli_load_p50_ms} + ${result.run_test_p50_ms} = ${result.one_shot_floor_ms} (${result.one_shot_floor_over_host} × host)`,
    ],
    [
      'one-shot, no warm container p50 (ms)',
      `${result.one_shot_no_warm_p50_ms} (${result.one_shot_no_warm_over_host} × host)`,
    ],
    ...(baselineCli
      ? ([
          [
            'one-shot, baseline CLI p50 (ms)',
            `${result.one_shot_baseline_p50_ms} (${result.one_shot_baseline_over_host} × host; current = ${result.one_shot_over_baseline} ×)`,
          ],
        ] as Array<[string, string]>)
      : []),
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '15' },
      'host-python': { type: 'string', default: '/usr/bin/python3' },
      'baseline-cli': { type: 'string' },
    },
  });
  const rounds = Number(values.rounds);
  const python = values['host-python'];
  const repo = makeRepo();
  // The one-shot command takes the repository's git root, as a user's checkout has one.
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'bench');
  const { engine } = await connectEngine();
  const sandbox = new Sandbox(engine, {
    image: loadRecipe().ref,
    workspacePoolSize: 1,
    workspacePoolLimits: runTestTool.limits,
  });
  const pool = (sandbox as unknown as { workspacePool: { warm(): Promise<void> } }).workspacePool;
  await sandbox.init();
  const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
  const runId = createRun(ledger, { kind: runTestTool.name, repo, owner: 'bench' });
  const ctx = { sandbox, ledger, runId, owner: 'bench', origin: 'user' as const, repoRoot: repo };
  const load: number[] = [];
  const sandboxed: number[] = [];
  const host: number[] = [];
  const oneShot: number[] = [];
  const noWarm: number[] = [];
  const noWarmEnv = { PIPER_WARM_IDLE_S: '0' };
  const baselineCli = values['baseline-cli'];
  const baseline: number[] = [];
  await hostPytest(python, repo);
  await runTest(ctx, { target: '-q tests/' });
  await oneShotRunTest(repo);
  for (let i = 0; i < rounds; i++) {
    host.push(await hostPytest(python, repo));
    oneShot.push(await oneShotRunTest(repo));
    noWarm.push(await oneShotRunTest(repo, CLI, noWarmEnv));
    load.push(await cliLoad());
    if (baselineCli) baseline.push(await oneShotRunTest(repo, baselineCli));
    // The pool refills after a call, as it does while the model thinks in a real run.
    await pool.warm();
    const t0 = performance.now();
    const { result } = await runTest(ctx, { target: '-q tests/' });
    sandboxed.push(performance.now() - t0);
    if (!result.passed || result.counts?.passed !== 30) throw new Error(`run_test failed: ${result.output}`);
    process.stderr.write(`\rround ${i + 1}/${rounds}`);
  }
  process.stderr.write('\n');
  await sandbox.close();
  ledger.close();
  const result = runTestResult(rounds, { load, sandboxed, host, oneShot, noWarm, baseline }, baselineCli);
  printRunTestTable(result, baselineCli);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
