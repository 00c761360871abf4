// node dist/bench/sandbox-image.js --before IMAGE [--json] [--rounds N]
// What a change of the sandbox image and its hardening costs in start time, against the image
// before it, measured side by side in this process, the arms interleaved round by round so the
// machine's load hits both alike:
//   cold_after    a fresh container of the current recipe's image under the current hardening
//                 (root owned by root, exec tmpfs at /tmp, /var/tmp, /work), create to removal
//   cold_before   the same with IMAGE under the previous hardening (read-only root, noexec tmpfs
//                 at /tmp and /work only)
//   cold_image    the current image under the previous hardening: the image's share of the change
//   cold_no_var_tmp  the current image and hardening without the /var/tmp tmpfs: that mount's share
//   docker_cli_*  `docker run --rm --network none` of each image: the image alone, no hardening
// It prints both images' sizes, each arm's p50 and the after / before ratios.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { ContainerConfig, DockerEngine } from '../runtime/engine/docker-engine.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { finishContainer, prepareContainer, startContainer } from '../runtime/sandbox/container-run.js';
import { LABEL, containerConfig } from '../runtime/sandbox/hardening.js';
import { EXECUTE_ARGV } from '../runtime/sandbox/pool.js';
import { DEFAULT_LIMITS } from '../runtime/sandbox/spec.js';
import { percentile, printTable } from './stats.js';

const PROGRAM = 'import sys\nprint("ok", sys.version_info[0])\n';

/** The hardening before the root was made writable: read-only root, noexec tmpfs at /tmp and /work. */
function previousHardening(config: ContainerConfig): ContainerConfig {
  const tmpfs = config.HostConfig.Tmpfs as Record<string, string>;
  const noexec = (options: string) => options.replace('exec,', 'noexec,');
  return {
    ...config,
    HostConfig: {
      ...config.HostConfig,
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': noexec(tmpfs['/tmp']!), '/work': noexec(tmpfs['/work']!) },
    },
  };
}

function withoutVarTmp(config: ContainerConfig): ContainerConfig {
  const tmpfs = { ...(config.HostConfig.Tmpfs as Record<string, string>) };
  delete tmpfs['/var/tmp'];
  return { ...config, HostConfig: { ...config.HostConfig, Tmpfs: tmpfs } };
}

/** Create, attach, start, run the program, exit: ms. The removal is left to the caller. */
async function coldRun(engine: DockerEngine, config: ContainerConfig, removals: Promise<void>[]) {
  const t0 = performance.now();
  const prepared = await prepareContainer(engine, config, DEFAULT_LIMITS.outputCapBytes);
  await startContainer(engine, prepared);
  const finished = await finishContainer(engine, prepared, { stdin: PROGRAM, timeoutS: 30 });
  const ms = performance.now() - t0;
  removals.push(engine.remove(prepared.id));
  if (finished.exitCode !== 0 || prepared.stdout.result().text !== 'ok 3\n')
    throw new Error(`${config.Image} gave exit ${finished.exitCode}`);
  return ms;
}

function dockerRun(image: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const argv = ['run', '--rm', '--network', 'none', image, 'python3', '-c', PROGRAM];
    const child = spawn('docker', argv, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`docker ${code}`)),
    );
  });
}

function config(image: string): ContainerConfig {
  const labels = {
    [LABEL.run]: 'bench-image',
    [LABEL.call]: 'bench-image',
    [LABEL.owner]: `bench:${process.pid}`,
  };
  return containerConfig({ image, argv: EXECUTE_ARGV, limits: DEFAULT_LIMITS, labels });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '20' },
      before: { type: 'string' },
    },
  });
  if (!values.before) throw new Error('--before IMAGE: the sandbox image to compare with');
  const { engine } = await connectEngine();
  const after = loadRecipe().ref;
  const before = values.before;
  const arms = {
    cold_after: () => coldRun(engine, config(after), removals),
    cold_before: () => coldRun(engine, previousHardening(config(before)), removals),
    cold_image: () => coldRun(engine, previousHardening(config(after)), removals),
    cold_no_var_tmp: () => coldRun(engine, withoutVarTmp(config(after)), removals),
    docker_cli_after: () => dockerRun(after),
    docker_cli_before: () => dockerRun(before),
  };
  const removals: Promise<void>[] = [];
  const samples = Object.fromEntries(Object.keys(arms).map((k) => [k, [] as number[]]));
  // One unmeasured round first: page caches, the engine's first-call costs.
  for (const arm of Object.values(arms)) await arm();
  for (let i = 0; i < Number(values.rounds); i++) {
    // Each round starts at the next arm, so no arm always follows the same one (and its removal).
    const order = Object.entries(arms);
    for (const [name, arm] of [...order.slice(i % order.length), ...order.slice(0, i % order.length)])
      samples[name]!.push(await arm());
    process.stderr.write(`\rround ${i + 1}/${values.rounds}`);
  }
  process.stderr.write('\n');
  await Promise.all(removals);
  const p50 = Object.fromEntries(Object.entries(samples).map(([k, s]) => [`${k}_p50_ms`, percentile(s, 50)]));
  const size = async (ref: string) => Math.round(((await engine.inspectImage(ref))?.size ?? 0) / 1e6);
  const result = {
    image_after: after,
    image_before: before,
    size_after_mb: await size(after),
    size_before_mb: await size(before),
    rounds: Number(values.rounds),
    ...p50,
    cold_after_over_before: ratio(p50.cold_after_p50_ms, p50.cold_before_p50_ms),
    cold_image_over_before: ratio(p50.cold_image_p50_ms, p50.cold_before_p50_ms),
    cold_after_over_image: ratio(p50.cold_after_p50_ms, p50.cold_image_p50_ms),
    cold_after_over_no_var_tmp: ratio(p50.cold_after_p50_ms, p50.cold_no_var_tmp_p50_ms),
    docker_cli_after_over_before: ratio(p50.docker_cli_after_p50_ms, p50.docker_cli_before_p50_ms),
  };
  printTable(Object.entries(result).map(([k, v]) => [k, String(v)]));
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

function ratio(a: number | undefined, b: number | undefined): number {
  return Math.round(((a ?? NaN) / (b ?? NaN)) * 100) / 100;
}

await main();
