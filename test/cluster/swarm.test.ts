// `piper-agent ab --cluster swarm` with an endpoint model on a real two-node Swarm
// (test/helpers/swarm.ts), the path a team's backlog takes: the fake OpenAI-compatible server listens
// on the manager's loopback address inside the swarm's namespace, and the jobs on both nodes reach
// it with the key that travelled as a Swarm secret. First, with the images on the manager only, the
// preflight refuses in one line naming the worker. Then, with the images on both nodes, two tasks ×
// two arms run as four jobs: the first instance job seen running is killed, and is retried on the
// other node; the model refuses one task, whose two instances fail for their own reason, are not
// retried, and show their output tail in the report. Throughout, the key is looked for in every
// inspectable place (service and task specs, container configs, labels, service logs, the
// containers' log files, daemon logs, the ledger, the report); at the end neither node keeps a service, config, secret, container or volume,
// and the swarm goes, leaving nothing.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli, startCli, type CliResult } from '../helpers/cli.js';
import {
  bringUpSwarm,
  nodeDocker,
  startModelServer,
  tearDownSwarm,
  type SwarmNode,
  type TestSwarm,
} from '../helpers/swarm.js';

const run = promisify(execFile);
const BENCH = join(packageRoot(), 'eval', 'tasks', 'piperbench');
const OK_TASK = 'pb-001-offbyone-page-count';
const REFUSED_TASK = 'pb-020-under-split-remainder';
/** The refused task's issue title: the fake model refuses any conversation that holds it. */
const REFUSED_PHRASE = 'A cent goes missing when a bill is split';
const KEY = `sk-cluster-${randomBytes(12).toString('hex')}`;
const seconds = (t0: number) => Number(((performance.now() - t0) / 1000).toFixed(1));

/** `docker save` from the main engine, `docker load` into a node. */
async function loadImages(node: SwarmNode, refs: string[]): Promise<void> {
  await run(
    'bash',
    ['-o', 'pipefail', '-c', `docker save ${refs.join(' ')} | docker -H ${node.host} load -q`],
    {
      maxBuffer: 16 << 20,
    },
  );
}

/** What is left on a node, each with what says where it came from (image, labels, state). */
async function leftOn(node: SwarmNode): Promise<string[]> {
  const list = async (...args: string[]) => (await nodeDocker(node, ...args)).split('\n').filter(Boolean);
  const left = [
    ...(await list('ps', '-a', '--format', '{{.ID}} {{.Image}} {{.Status}} {{.Labels}}')),
    ...(await list('volume', 'ls', '-q')),
  ];
  if (node.role === 'manager')
    left.push(
      ...(await list('service', 'ls', '-q')),
      ...(await list('config', 'ls', '-q')),
      ...(await list('secret', 'ls', '-q')),
    );
  return left;
}

interface Killed {
  container: string;
  node: SwarmNode;
  arm: string;
  task: string;
}

/**
 * While `ab` runs: every service, task, secret and container of either node, inspected, with the
 * job services' logs, kept for the key search; and the first instance job seen running, on either
 * node, killed (after `afterMs`). Returns what was seen and the job killed.
 */
async function watch(swarm: TestSwarm, running: () => boolean, afterMs: number) {
  const seen: string[] = [];
  let killed: Killed | null = null;
  let secrets = 0;
  const sayAll = async (node: SwarmNode, list: string[], ...cmd: string[]) => {
    const ids = (await nodeDocker(node, ...list).catch(() => '')).split('\n').filter(Boolean);
    if (ids.length > 0) seen.push(await nodeDocker(node, ...cmd, ...ids).catch(() => ''));
    return ids;
  };
  while (running()) {
    const m = swarm.manager;
    const services = await sayAll(m, ['service', 'ls', '-q'], 'service', 'inspect');
    for (const s of services) {
      await sayAll(m, ['service', 'ps', '-q', '--no-trunc', s], 'inspect');
      seen.push(await nodeDocker(m, 'service', 'logs', '--raw', s).catch(() => ''));
    }
    secrets = Math.max(secrets, (await sayAll(m, ['secret', 'ls', '-q'], 'secret', 'inspect')).length);
    for (const node of [swarm.manager, swarm.worker]) {
      await sayAll(node, ['ps', '-aq', '--filter', 'label=piper.ab-job'], 'inspect');
      seen.push(containerLogFiles(swarm, node));
      if (!killed) killed = await killOneJob(node, afterMs);
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
  return { seen, killed, secrets };
}

/** The json-file logs of every container on `node` now, read where its daemon writes them. */
function containerLogFiles(swarm: TestSwarm, node: SwarmNode): string {
  const dir = join(swarm.root, node.role, 'data', 'containers');
  try {
    return readdirSync(dir)
      .map((id) => {
        try {
          return readFileSync(join(dir, id, `${id}-json.log`), 'latin1');
        } catch {
          return ''; // removed since the listing
        }
      })
      .join('\n');
  } catch {
    return '';
  }
}

/** Kills an instance job (not a global one: pull, preflight, sweep) running on `node`, if any. */
async function killOneJob(node: SwarmNode, afterMs: number): Promise<Killed | null> {
  const format = '{{.ID}} {{.Label "piper.ab.arm"}} {{.Label "piper.ab.task"}} {{.Label "piper.ab.global"}}';
  const rows = await nodeDocker(node, 'ps', '--filter', 'label=piper.ab-job', '--format', format).catch(
    () => '',
  );
  const job = rows
    .split('\n')
    .map((row) => row.trim().split(' '))
    .find((cols) => cols[0] && cols[2] && !cols[3]);
  if (!job) return null;
  await new Promise((r) => setTimeout(r, afterMs));
  // A job that ended in the meantime cannot be killed: the next round looks for another.
  return nodeDocker(node, 'kill', job[0]!).then(
    () => ({ container: job[0]!, node, arm: job[1]!, task: job[2]! }),
    () => null,
  );
}

/** Every file under `dir`, as text. */
function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

describe('ab --cluster swarm with an endpoint model (two real Swarm nodes, a fake model server)', () => {
  let swarm: TestSwarm;
  let model: { baseUrl: string; log: string };
  const out = mkdtempSync(join(tmpdir(), 'piper-swarm-out-'));
  const refusedOut = mkdtempSync(join(tmpdir(), 'piper-swarm-refused-'));
  const timings: Record<string, number> = {};
  let refused: CliResult;
  let result: CliResult;
  let watched: Awaited<ReturnType<typeof watch>>;

  beforeAll(async () => {
    const t0 = performance.now();
    const built = runCli(['ci-image', 'build']);
    swarm = await bringUpSwarm();
    timings.swarm_up_s = swarm.upSeconds;
    model = await startModelServer(swarm, KEY, REFUSED_PHRASE);
    const ci = await built;
    expect(ci.code, ci.stderr).toBe(0);
    const refs = [/piper-agent-ci:[0-9a-f]{12}/.exec(ci.stdout)![0], loadRecipe().ref];
    const t1 = performance.now();
    await loadImages(swarm.manager, refs);
    timings.load_manager_s = seconds(t1);
    const ab = (outDir: string) => [
      'ab',
      '--bench',
      BENCH,
      '--model',
      'openai-tools:fake-model',
      '--tasks',
      `${OK_TASK},${REFUSED_TASK}`,
      '--concurrency',
      '2',
      '--out',
      outDir,
      '--cluster',
      'swarm',
      '--cluster-host',
      swarm.manager.host,
    ];
    const env = { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: KEY };
    refused = await runCli(ab(refusedOut), { env });
    const t2 = performance.now();
    await loadImages(swarm.worker, refs);
    timings.load_worker_s = seconds(t2);
    const t3 = performance.now();
    const cli = startCli(ab(out), { env });
    let abRunning = true;
    const watching = watch(swarm, () => abRunning, 2000);
    result = await cli.done;
    abRunning = false;
    watched = await watching;
    timings.swarm_ab_s = seconds(t3);
    timings.before_all_s = seconds(t0);
  }, 1_800_000);

  afterAll(async () => {
    // Also when a test failed before the teardown test: nothing of the swarm may outlive the file.
    if (swarm) await tearDownSwarm(swarm.name);
    for (const dir of [out, refusedOut]) rmSync(dir, { recursive: true, force: true });
    console.log(`swarm timings: ${JSON.stringify(timings)}`);
  }, 600_000);

  it('refuses before any job, in one line naming the node without the images', () => {
    expect(refused.code, refused.stderr).toBe(2);
    const lines = refused.stderr.split('\n').filter((l) => /^ {2}\S/.test(l));
    expect(lines, refused.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/no CI image piper-agent-ci:/);
    expect(refused.stderr).toMatch(/the swarm cannot run these jobs/);
    expect(existsSync(join(refusedOut, 'report.json'))).toBe(false);
  });

  it('retries the killed job on the other node, and finishes the run', async () => {
    const killed = watched.killed;
    expect(killed, result.stderr.slice(-3000)).not.toBeNull();
    const nodeId = (node: SwarmNode) => nodeDocker(node, 'info', '--format', '{{.Swarm.NodeID}}');
    const other = killed!.node === swarm.manager ? swarm.worker : swarm.manager;
    const [killedId, otherId] = [await nodeId(killed!.node), await nodeId(other)];
    expect(result.stderr).toMatch(
      new RegExp(
        `${killed!.arm} ${killed!.task}: killed on ${killedId}: failed \\(exit 137\\).*retrying on another node`,
      ),
    );
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;
    expect(report.instances.map((i) => `${i.arm} ${i.task}`).sort()).toEqual([
      `current ${OK_TASK}`,
      `policy ${OK_TASK}`,
    ]);
    expect(report.instances.every((i) => typeof i.node === 'string' && i.node.length > 0)).toBe(true);
    // Its retry ran on the other node: its result came back from there, or its own failure did.
    if (killed!.task === OK_TASK) {
      expect(report.instances.find((i) => i.arm === killed!.arm)!.node).toBe(otherId);
      expect(result.stderr).toMatch(new RegExp(`on ${otherId} \\([0-9.]+ s, retried after killed\\)`));
    } else {
      const failed = report.failed_jobs!.find((f) => f.arm === killed!.arm)!;
      expect([failed.node, failed.retried_after?.startsWith(`killed on ${killedId}`)]).toEqual([
        otherId,
        true,
      ]);
    }
    expect(result.stderr).toMatch(/2 instance\(s\) run, 0 read back/);
  });

  it("fails the refused task's instances for their own reason, with their output tail, not retried", () => {
    expect(result.code).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;
    const failed = report.failed_jobs ?? [];
    expect(failed.map((f) => `${f.arm} ${f.task} ${f.reason}`).sort()).toEqual([
      `current ${REFUSED_TASK} instance`,
      `policy ${REFUSED_TASK} instance`,
    ]);
    for (const f of failed) {
      expect(f.tail.join('\n')).toContain(`the fake model refuses`);
      expect(f.node.length).toBeGreaterThan(0);
    }
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('## Failed jobs');
  });

  it('reached the model server from the jobs, every request with the key', () => {
    const requests = readFileSync(model.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: number });
    expect(requests.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.status === 400).length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.status === 401)).toEqual([]);
  });

  it('keeps the key out of every inspectable place', () => {
    expect(watched.secrets).toBeGreaterThan(0);
    const seen = watched.seen.join('\n');
    // What was inspected holds the jobs' specs and logs: the secret by reference, the key nowhere.
    expect(seen).toContain('PIPER_JOB_KEY_VAR=OPENAI_API_KEY');
    expect(seen).toContain('piper-model-key');
    expect(seen).not.toContain(KEY);
    expect(result.stdout + result.stderr + refused.stdout + refused.stderr).not.toContain(KEY);
    expect(filesText(out)).not.toContain(KEY);
    for (const role of ['manager', 'worker'])
      expect(readFileSync(join(swarm.root, role, 'log'), 'latin1')).not.toContain(KEY);
    const ledger = Ledger.open(join(out, 'ledger.db'));
    try {
      expect(ledger.database.serialize().toString('latin1')).not.toContain(KEY);
    } finally {
      ledger.close();
    }
  });

  it('leaves no service, config, secret, container or volume on either node', async () => {
    // Once ab has removed a global job's service, each node removes that task's container on its
    // own, a moment later (the manager no longer lists the removed service's tasks to wait on).
    for (let i = 0; i < 60; i++) {
      if ((await leftOn(swarm.manager)).length + (await leftOn(swarm.worker)).length === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await leftOn(swarm.manager)).toEqual([]);
    expect(await leftOn(swarm.worker)).toEqual([]);
  });

  it('takes the swarm down leaving nothing: no process, no state, no namespace', async () => {
    const name = swarm.name;
    const t0 = performance.now();
    await tearDownSwarm(name);
    timings.swarm_down_s = seconds(t0);
    expect(existsSync(swarm.root)).toBe(false);
    expect((await run('ip', ['netns', 'list'])).stdout).not.toContain(name);
    const left = (await run('pgrep', ['-af', swarm.root]).catch(() => ({ stdout: '' }))).stdout;
    expect(left).toBe('');
  }, 600_000);
});
