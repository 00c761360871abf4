// Podman through its Docker-compatible API, rootful and rootless: a `podman system service` of
// the test's own (test/helpers/podman.ts), the sandbox image built through it, `execute` (its
// receipt in the ledger) and a headless `fix` run on it, the sandbox's containment cases run
// against it, `doctor` naming the engine, and nothing left on it afterwards. Where the engine
// cannot apply a hardening setting (rootless Podman on cgroup v1: no memory, pids or CPU limits)
// runs are refused by default, and go on only with the settings accepted by name. Podman before
// 5.0 never reports a memory kill: the hog is still killed at the limit, and the receipt says
// "killed by SIGKILL" with the likely cause instead of claiming an OOM kill; doctor says so.
// The image is built through each engine from the offline build's cached root filesystem (an
// import of seconds; sandbox-rootfs.ts puts it back from the Docker engine's image if missing).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import type { EngineIdentity } from '../../runtime/engine/engine-identity.js';
import { UNREPORTED_KILL_REASON } from '../../runtime/sandbox/container-run.js';
import { ACCEPT_UNENFORCED_ENV } from '../../runtime/sandbox/enforcement.js';
import { LABEL, containerConfig } from '../../runtime/sandbox/hardening.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { DEFAULT_LIMITS } from '../../runtime/sandbox/spec.js';
import { runCli } from '../helpers/cli.js';
import { containmentCases } from '../helpers/containment.js';
import { startPodman, type PodmanService } from '../helpers/podman.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { ensureSandboxRootfs } from '../helpers/sandbox-rootfs.js';

const IMAGE = loadRecipe().ref;

/** Whether memory, pids and CPU limits can hold on this engine (the cgroup facts it reports). */
function cgroupLimitsHold(id: EngineIdentity): boolean {
  if (!id.rootless) return true;
  if (id.cgroupVersion === '1') return false;
  return ['memory', 'pids', 'cpu'].every((c) => id.cgroupControllers?.includes(c));
}

/** Whether this Podman reports memory kills, from its release alone (Podman 5.0 made it do so). */
function reportsOomKills(id: EngineIdentity): boolean {
  return Number(/^v?(\d+)\./.exec(id.version)?.[1] ?? 0) >= 5;
}

beforeAll(async () => {
  await ensureSandboxRootfs();
}, 300_000);

describe.each(['rootful', 'rootless'] as const)('Podman %s', (mode) => {
  let podman: PodmanService;
  let identity: EngineIdentity;
  let limitsHold = true;
  let sandbox: Sandbox | null = null;
  /** The CLI's environment; with the cgroup settings accepted where the engine lacks them. */
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    podman = await startPodman(mode);
    identity = await podman.engine.identity();
    limitsHold = cgroupLimitsHold(identity);
    env = { ...podman.env, ...(limitsHold ? {} : { [ACCEPT_UNENFORCED_ENV]: 'memory,pids,cpus,ulimits' }) };
  }, 300_000);

  afterAll(async () => {
    delete process.env[ACCEPT_UNENFORCED_ENV];
    await sandbox?.close();
    if (!podman) return;
    const left = await podman.api.listContainers({ all: true, filters: { label: [LABEL.owner] } });
    await podman.stop();
    expect(left).toEqual([]);
  }, 120_000);

  it('is told apart from Docker, rootless or not, and whether it reports memory kills', () => {
    expect(identity.kind).toBe('podman');
    expect(identity.rootless).toBe(mode === 'rootless');
    expect(identity.reportsOomKills).toBe(reportsOomKills(identity));
  });

  it('builds the sandbox image through it and finds it under its short name', async () => {
    const r = await runCli(['image', 'build'], { env: podman.env, cwd: podman.root });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain(IMAGE);
    expect(await podman.engine.imageId(IMAGE)).toMatch(/^sha256:/);
    // A second build finds the recorded image: nothing is built again. (The two only read: run together.)
    const [ls, again] = await Promise.all([
      runCli(['image', 'ls'], { env: podman.env, cwd: podman.root }),
      runCli(['image', 'build'], { env: podman.env, cwd: podman.root }),
    ]);
    expect(ls.stdout).toContain(`* ${IMAGE}`);
    expect(again.stdout).toContain('up to date');
  }, 180_000);

  it('doctor names the engine and every hardening setting it cannot apply', async () => {
    const [r, text] = await Promise.all([
      runCli(['doctor', '--json'], { env: podman.env, cwd: podman.root }),
      runCli(['doctor'], { env: podman.env, cwd: podman.root }),
    ]);
    expect(text.stdout).toContain(`engine  podman`);
    expect(text.stdout).toContain(`(${mode}`);
    expect(text.stdout).toMatch(
      reportsOomKills(identity)
        ? /^ok +oom +the engine reports out-of-memory kills/m
        : new RegExp(
            `^ok +oom +podman ${identity.version.replace(/\./g, '\\.')} does not report out-of-memory kills`,
            'm',
          ),
    );
    const checks = (
      JSON.parse(r.stdout) as {
        checks: Array<{ name: string; ok: boolean; detail: string; reported?: boolean }>;
      }
    ).checks;
    const engineCheck = checks.find((c) => c.name === 'engine')!;
    expect(engineCheck.detail).toMatch(new RegExp(`^podman \\d+\\.\\d+\\S* \\(${mode}, cgroup v\\d\\)`));
    const oom = checks.find((c) => c.name === 'oom')!;
    if (reportsOomKills(identity)) expect(oom).toMatchObject({ ok: true, reported: true });
    else {
      expect(oom).toMatchObject({ ok: true, reported: false });
      expect(oom.detail).toContain(`podman ${identity.version} does not report out-of-memory kills`);
      expect(oom.detail).toContain(UNREPORTED_KILL_REASON);
    }
    const hardening = checks.find((c) => c.name === 'hardening')!;
    if (limitsHold) {
      expect(hardening).toMatchObject({ ok: true });
      expect(hardening.detail).toContain('every setting holds');
    } else {
      expect(hardening.ok).toBe(false);
      for (const setting of ['memory', 'pids', 'cpus']) expect(hardening.detail).toContain(setting);
      expect(text.stdout).toContain(`${ACCEPT_UNENFORCED_ENV}=memory,pids,cpus`);
    }
  }, 120_000);

  it('runs `execute` on it, the receipt in the ledger (refused first where limits cannot hold), after sweeping what a dead run left', async () => {
    // A container a piper-agent left when it died (its owner process is gone): the next start removes it.
    const deadPid = spawnSync('true').pid;
    const orphan = await podman.engine.createContainer(
      containerConfig({
        image: IMAGE,
        argv: ['true'],
        limits: DEFAULT_LIMITS,
        labels: {
          [LABEL.owner]: `${hostname()}:${deadPid}:1`,
          [LABEL.run]: 'orphan',
          [LABEL.call]: 'orphan',
        },
      }),
    );
    const cwd = mkdtempSync(join(podman.root, 'execute-'));
    const ledgerFile = join(cwd, 'ledger.db');
    const args = ['execute', '--ledger', ledgerFile, '--repo', cwd, '--json', '--code'];
    // Where limits cannot hold, the same call without the acceptance is refused (its own directory).
    const refusedCwd = mkdtempSync(join(podman.root, 'refused-'));
    const refusedArgs = ['execute', '--ledger', join(refusedCwd, 'l.db'), '--repo', refusedCwd, '--code'];
    const [r, refused] = await Promise.all([
      runCli([...args, 'import sys\nprint(6*7)\nsys.exit(3)'], { env, cwd }),
      limitsHold ? null : runCli([...refusedArgs, 'print(1)'], { env: podman.env, cwd: refusedCwd }),
    ]);
    expect(`${r.stderr}\n${refused?.stderr ?? ''}`).toMatch(/start-up sweep: removed 1 orphan container/);
    expect(await podman.api.listContainers({ all: true, filters: { id: [orphan] } })).toEqual([]);
    if (refused) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("cannot apply the sandbox's memory");
      expect(refused.stderr).toContain(`${ACCEPT_UNENFORCED_ENV}=memory,pids,cpus`);
    }
    expect(r.code, r.stderr).toBe(0);
    const receipt = JSON.parse(r.stdout) as { stdout: string; exit_code: number; container_id: string };
    expect(receipt).toMatchObject({ stdout: '42\n', exit_code: 3 });
    const ledger = Ledger.open(ledgerFile);
    try {
      const row = ledger.database
        .prepare('SELECT exit_code, stdout, image_digest FROM executions WHERE container_id = ?')
        .get(receipt.container_id);
      expect(row).toEqual({ exit_code: 3, stdout: '42\n', image_digest: await podman.engine.imageId(IMAGE) });
    } finally {
      ledger.close();
    }
  }, 120_000);

  it('runs a headless `fix` on it to a verified resolution', async () => {
    const repo = sampleRepo();
    try {
      const r = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'), { env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'resolved', verified: true, exit_code: 0 });
      expect(readFileSync(join(repo, 'textstats', 'words.py'), 'utf8')).toContain('return ranked[:n]');
      // Every container of the run is gone when `fix` exits: the pools', the lint service's, the runs'.
      const left = await podman.api.listContainers({ all: true, filters: { label: [LABEL.owner] } });
      expect(left.map((c) => `${c.Command} ${c.State}`)).toEqual([]);
      expect(r.stderr).not.toContain('could not remove');
    } finally {
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 300_000);

  describe('containment', () => {
    beforeAll(() => {
      if (!limitsHold) process.env[ACCEPT_UNENFORCED_ENV] = 'memory,pids,cpus,ulimits';
      sandbox = new Sandbox(podman.engine, { image: IMAGE, concurrency: 4 });
    });
    // The cgroup cases run only where the limits hold (decided at collection: rootful always).
    containmentCases(() => sandbox!, {
      cgroupLimits: mode === 'rootful',
      oomReported: () => reportsOomKills(identity),
    });
  });
});
