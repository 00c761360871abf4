// npm run bench:sandbox [-- --json] [--rounds N]
// The sandbox's speed against its baselines, measured side by side in one process, interleaved
// round by round so drift on the machine hits every arm alike:
//   host_spawn   the same Python program spawned directly on the host from Node (Debian's python3,
//                the interpreter the sandbox image carries)
//   docker_cli   docker run --rm --network none IMAGE python3 -c ... (what a naive agent does)
//   cold         one fresh hardened container per call, created on demand
//   warm         one fresh hardened container per call, taken from the pre-started pool (the pool
//                refills between calls, as it does while the model thinks in a real run)
// Targets: warm p50 ≤ 3 × host_spawn p50, cold p50 ≤ 0.6 × docker_cli p50.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { EXECUTE_ARGV } from '../runtime/sandbox/pool.js';
import { Sandbox } from '../runtime/sandbox/sandbox.js';
import { percentile, printTable } from './stats.js';

const PROGRAM = 'import sys\nprint("ok", sys.version_info[0])\n';
const HOST_PYTHON = '/usr/bin/python3';

function timeChild(argv: string[], input?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    if (input !== undefined) child.stdin!.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !out.startsWith('ok')) reject(new Error(`${argv.join(' ')} failed: ${code} ${out}`));
      else resolve(performance.now() - t0);
    });
  });
}

type Samples = Record<'host_spawn' | 'docker_cli' | 'cold' | 'warm', number[]>;

/** The percentiles and ratios against the targets, from the rounds' samples. */
function sandboxResult(engine: string, rounds: number, samples: Samples, warmHits: number) {
  const p50 = (k: keyof typeof samples) => percentile(samples[k], 50);
  return {
    engine,
    rounds,
    execute_warm_p50_ms: p50('warm'),
    execute_warm_p95_ms: percentile(samples.warm, 95),
    execute_cold_p50_ms: p50('cold'),
    execute_cold_p95_ms: percentile(samples.cold, 95),
    host_spawn_p50_ms: p50('host_spawn'),
    docker_cli_p50_ms: p50('docker_cli'),
    warm_hit_rate: warmHits / rounds,
    warm_over_host_spawn: Math.round((p50('warm') / p50('host_spawn')) * 100) / 100,
    cold_over_docker_cli: Math.round((p50('cold') / p50('docker_cli')) * 100) / 100,
    targets: { warm_over_host_spawn: 3, cold_over_docker_cli: 0.6 },
  };
}

function printSandboxTable(result: ReturnType<typeof sandboxResult>): void {
  printTable([
    ['execute warm p50 / p95 (ms)', `${result.execute_warm_p50_ms} / ${result.execute_warm_p95_ms}`],
    ['execute cold p50 / p95 (ms)', `${result.execute_cold_p50_ms} / ${result.execute_cold_p95_ms}`],
    ['host spawn p50 (ms)', result.host_spawn_p50_ms],
    ['docker run CLI p50 (ms)', result.docker_cli_p50_ms],
    ['warm / host spawn', `${result.warm_over_host_spawn} × (target ≤ 3)`],
    ['cold / docker CLI', `${result.cold_over_docker_cli} × (target ≤ 0.6)`],
    ['warm hit rate', result.warm_hit_rate],
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, rounds: { type: 'string', default: '25' } },
  });
  const rounds = Number(values.rounds);
  const { engine } = await connectEngine();
  const info = await engine.info();
  const image = loadRecipe().ref;
  const cold = new Sandbox(engine, { image });
  const warm = new Sandbox(engine, { image, poolSize: 2 });
  await cold.init();
  await warm.init();
  const pool = (warm as unknown as { pool: { warm(): Promise<void> } }).pool;

  const samples = {
    host_spawn: [] as number[],
    docker_cli: [] as number[],
    cold: [] as number[],
    warm: [] as number[],
  };
  let warmHits = 0;
  const spec = { image, argv: EXECUTE_ARGV, stdin: PROGRAM };
  // One unmeasured round of each arm first: page caches, the engine's first-call costs.
  await timeChild([HOST_PYTHON, '-c', PROGRAM]);
  await cold.run(spec);
  for (let i = 0; i < rounds; i++) {
    samples.host_spawn.push(await timeChild([HOST_PYTHON, '-c', PROGRAM]));
    samples.docker_cli.push(
      await timeChild(['docker', 'run', '--rm', '--network', 'none', image, 'python3', '-c', PROGRAM]),
    );
    let t0 = performance.now();
    const c = await cold.run(spec);
    samples.cold.push(performance.now() - t0);
    if (c.stdout !== 'ok 3\n') throw new Error(`cold run gave ${JSON.stringify(c)}`);
    await pool.warm();
    t0 = performance.now();
    const w = await warm.run(spec);
    samples.warm.push(performance.now() - t0);
    if (w.stdout !== 'ok 3\n') throw new Error(`warm run gave ${JSON.stringify(w)}`);
    if (w.warm) warmHits++;
    process.stderr.write(`\rround ${i + 1}/${rounds}`);
  }
  process.stderr.write('\n');
  await cold.close();
  await warm.close();

  const result = sandboxResult(`Docker ${info.version}`, rounds, samples, warmHits);
  printSandboxTable(result);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
