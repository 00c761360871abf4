// `piper-agent ab --cluster swarm` on a real two-node Swarm (test/helpers/swarm.ts): two piperbench
// tasks × both arms as four Swarm jobs, run beside a local `ab` on the same tasks. One job is killed
// while it runs: its instance is reported failed and nothing of it is kept; the rerun reads the three
// finished instances back and runs that one alone. The report then equals the local one but for run
// ids, wall times and `node`; the instances ran on both nodes; the ledger holds each run once; and
// neither node keeps a service, a config, a container or a volume. The swarm then goes, leaving nothing.
// The images reach both nodes through the registry inside the namespace (`ab --registry`).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { bringUpSwarm, nodeDocker, tearDownSwarm, type SwarmNode, type TestSwarm } from '../helpers/swarm.js';

const run = promisify(execFile);
const BENCH = join(packageRoot(), 'eval', 'tasks', 'piperbench');
const TASKS = ['pb-001-offbyone-page-count', 'pb-020-under-split-remainder'];
const AB = ['ab', '--bench', BENCH, '--model', 'sim:1', '--tasks', TASKS.join(','), '--concurrency', '2'];

const readReport = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;
const seconds = (t0: number) => Number(((performance.now() - t0) / 1000).toFixed(1));

/** The report with what differs between any two runs taken out: run ids, wall times, the node. */
function comparable(report: AbReport): unknown {
  return {
    ...report,
    instances: report.instances.map(
      ({ run_id: _r, judge_run_id: _j, wall_s: _w, node: _n, ...rest }) => rest,
    ),
  };
}

/** The CI image of this build, on the main engine: `ab --registry` copies it and the sandbox image on. */
async function buildCiImage(): Promise<void> {
  const built = await runCli(['ci-image', 'build']);
  expect(built.code, built.stderr).toBe(0);
}

/**
 * Kills the first instance job's container seen running on either node, after it has run `afterMs`
 * (not a pull or sweep job: those run on every node, labelled piper.ab.global). The jobs start once
 * the images are on the nodes (copied to the manager, pushed, pulled): minutes. Gives up, with no
 * kill, when `running()` says the ab has ended.
 */
async function killOneJob(swarm: TestSwarm, afterMs: number, running: () => boolean): Promise<string | null> {
  while (running()) {
    for (const node of [swarm.manager, swarm.worker]) {
      const rows = await nodeDocker(
        node,
        'ps',
        '--filter',
        'label=piper.ab-job',
        '--format',
        '{{.ID}} {{.Label "piper.ab.global"}}',
      );
      const instanceJob = rows
        .split('\n')
        .map((row) => row.trim().split(' '))
        .find((cols) => cols[0] && !cols[1]);
      if (instanceJob) {
        await new Promise((r) => setTimeout(r, afterMs));
        // A job that ended in the meantime cannot be killed: look for another.
        const gone = await nodeDocker(node, 'kill', instanceJob[0]!).then(
          () => false,
          () => true,
        );
        if (!gone) return instanceJob[0]!;
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return null;
}

/** What is left on a node, each with what says where it came from (image, labels, state). */
async function leftOn(node: SwarmNode): Promise<string[]> {
  const list = async (...args: string[]) => (await nodeDocker(node, ...args)).split('\n').filter(Boolean);
  const left = [
    ...(await list('ps', '-a', '--format', '{{.ID}} {{.Image}} {{.Status}} {{.Labels}}')),
    ...(await list('volume', 'ls', '-q')),
  ];
  if (node.role === 'manager')
    left.push(...(await list('service', 'ls', '-q')), ...(await list('config', 'ls', '-q')));
  return left;
}

describe('ab --cluster swarm (two real Swarm nodes, sim:1)', () => {
  let swarm: TestSwarm;
  const local = mkdtempSync(join(tmpdir(), 'piper-swarm-local-'));
  const out = mkdtempSync(join(tmpdir(), 'piper-swarm-out-'));
  const timings: Record<string, number> = {};
  let first: CliResult;
  let second: CliResult;

  beforeAll(async () => {
    const t0 = performance.now();
    // The local run and the swarm's bring-up at once: they share nothing but the machine.
    const localRun = runCli([...AB, '--out', local]);
    swarm = await bringUpSwarm();
    timings.swarm_up_s = swarm.upSeconds;
    await buildCiImage();
    const localDone = await localRun;
    expect(localDone.code, localDone.stderr).toBe(0);
    // The images reach the nodes as a user's would, through the registry: ab copies them to the
    // manager's engine, pushes them there, and every node pulls; the rerun finds them in place.
    const cluster = [
      ...AB,
      '--out',
      out,
      '--cluster',
      'swarm',
      '--cluster-host',
      swarm.manager.host,
      '--registry',
      swarm.registry,
    ];
    const t2 = performance.now();
    let abRunning = true;
    const killed = killOneJob(swarm, 3000, () => abRunning);
    first = await runCli(cluster);
    abRunning = false;
    expect(await killed, `no instance job was seen running:\n${first.stderr.slice(-3000)}`).not.toBeNull();
    timings.swarm_ab_s = seconds(t2);
    const t3 = performance.now();
    second = await runCli(cluster);
    timings.swarm_rerun_s = seconds(t3);
    timings.before_all_s = seconds(t0);
  }, 1_800_000);

  afterAll(async () => {
    // Also when a test failed before the teardown test: nothing of the swarm may outlive the file.
    if (swarm) await tearDownSwarm(swarm.name);
    console.log(`swarm timings: ${JSON.stringify(timings)}`);
  }, 600_000);

  it('reports the killed job failed, keeps the other three, and the rerun runs that one alone', () => {
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/3 instance\(s\) run, 0 read back/);
    expect(first.stderr.match(/^failed: /gm)).toHaveLength(1);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/1 instance\(s\) run, 3 read back/);
  });

  it('writes the report a local run writes, plus the node of each instance, from both nodes', () => {
    const swarmReport = readReport(out);
    expect(comparable(swarmReport)).toEqual(comparable(readReport(local)));
    const nodes = swarmReport.instances.map((i) => i.node);
    expect(nodes.every((n) => typeof n === 'string' && n.length > 0)).toBe(true);
    expect(new Set(nodes).size).toBe(2);
    expect(readReport(local).instances.every((i) => i.node === undefined)).toBe(true);
  });

  it('holds each instance run once in the ledger: the killed job left nothing there', () => {
    const ledger = Ledger.open(join(out, 'ledger.db'));
    try {
      const fix = ledger.database.prepare(`SELECT COUNT(*) AS n FROM runs WHERE kind = 'fix'`).get();
      expect(fix).toEqual({ n: 4 });
      expect(ledger.database.prepare(`SELECT COUNT(*) AS n FROM ab_instances`).get()).toEqual({ n: 4 });
      expect(ledger.database.pragma('foreign_key_check')).toEqual([]);
    } finally {
      ledger.close();
    }
  });

  it('leaves no service, config, container or volume on either node', async () => {
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
    const dockerds = (await run('pgrep', ['-af', 'dockerd']).catch(() => ({ stdout: '' }))).stdout;
    expect(dockerds).not.toContain(swarm.root);
  }, 600_000);
});
