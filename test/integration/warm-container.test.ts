// A container kept warm between one-shot commands (runtime/sandbox/warm-container.ts), on the real
// engine: made exactly as hardened as a pool container, claimed by exactly one of two `run-test`
// processes started together (the other runs on its own container), replaced after use, and gone
// after its idle time or, when stale, by the sweep.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute } from '../../primitives/tools/execute/effect.js';
import { RUN_TEST_LIMITS } from '../../primitives/tools/run-test/effect.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { resolveLimits, type Limits } from '../../runtime/sandbox/spec.js';
import { leaveWarm, warmName, type WarmKey } from '../../runtime/sandbox/warm-container.js';
import { sweepWarm } from '../../runtime/sandbox/warm-sweep.js';
import { packageRoot } from '../../runtime/package-root.js';
import { startCli } from '../helpers/cli.js';
import { IMAGE, engine, expectNoContainersLeft, makeSandbox } from '../helpers/sandbox.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { getExecution } from '../../runtime/ledger/calls.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-warm-'));
const repo = join(dir, 'repo');
cpSync(join(packageRoot(), 'test', 'fixtures', 'suites', 'passing'), repo, { recursive: true });
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
git('init', '-q');
git('add', '-A');
git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-qm', 'fixture');
const quiet = () => undefined;

/** A key of its own per test (its tmpfs size), so no test claims or sweeps another's container. */
async function key(tmpfsMb: number, limits: Partial<Limits> = RUN_TEST_LIMITS): Promise<WarmKey> {
  const imageId = (await engine.imageId(IMAGE))!;
  return { image: IMAGE, imageId, limits: resolveLimits({ ...limits, tmpfsMb }), runtime: null };
}

/** The warm container waiting under the key's name, or null. */
async function waiting(k: WarmKey): Promise<{ id: string; state: string } | null> {
  const all = await engine.listContainers([LABEL.warm]);
  const found = all.find((c) => c.names.includes(warmName(k)));
  return found ? { id: found.id, state: found.state } : null;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`still not ${what}`);
}

function runTestCli(ledger: string, idleS: number) {
  return startCli(['run-test', 'tests/', '--repo', repo, '--image', IMAGE, '--ledger', ledger, '--json'], {
    env: { PIPER_WARM_IDLE_S: String(idleS) },
  }).done;
}

const warmKeys: WarmKey[] = [];
afterAll(async () => {
  for (const k of warmKeys) {
    const left = await waiting(k);
    if (left) await engine.remove(left.id);
  }
  await expectNoContainersLeft();
  rmSync(dir, { recursive: true, force: true });
});

describe('a warm container', () => {
  it('is made exactly as a pool container is, but for AutoRemove', async () => {
    const k = await key(250);
    warmKeys.push(k);
    const sandbox = makeSandbox({ workspacePoolSize: 1, workspacePoolLimits: k.limits });
    try {
      await sandbox.init();
      const [pooled] = await engine.listContainers([
        `${LABEL.owner}=${formatOwner(currentOwner())}`,
        LABEL.pool,
      ]);
      await leaveWarm(engine, k, 60, quiet);
      const warm = (await waiting(k))!;
      expect(warm.state).toBe('running');
      const a = await engine.appliedSettings(pooled!.id);
      const b = await engine.appliedSettings(warm.id);
      expect(b.User).toBe(a.User);
      expect([a.HostConfig.AutoRemove, b.HostConfig.AutoRemove]).toEqual([false, true]);
      expect({ ...b.HostConfig, AutoRemove: false }).toEqual(a.HostConfig);
    } finally {
      await sandbox.close();
    }
  });

  it('is claimed by exactly one of two run-tests started together, and replaced', async () => {
    const k = await key(resolveLimits(RUN_TEST_LIMITS).tmpfsMb);
    warmKeys.push(k);
    const before = await waiting(k);
    if (before) await engine.remove(before.id);
    const first = await runTestCli(join(dir, 'first.db'), 120);
    expect(first.code).toBe(0);
    const left = (await waiting(k))!;
    expect(left.state).toBe('running');
    const ledgers = [join(dir, 'a.db'), join(dir, 'b.db')];
    const runs = await Promise.all(ledgers.map((l) => runTestCli(l, 120)));
    const used = runs.map((run, i) => {
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { call_id: string; counts: { passed: number } };
      expect(result.counts.passed).toBe(2);
      const ledger = Ledger.open(ledgers[i]!);
      try {
        return getExecution(ledger, result.call_id)!;
      } finally {
        ledger.close();
      }
    });
    const claimed = used.filter((e) => e.container_id === left.id);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.warm).toBe(1);
    // The other runs on a container of its own: the one it prestarted while it planned (warm 1), or,
    // when that one is not ready or died under load, one made for the call (warm 0). Either is right.
    expect(used[0]!.container_id).not.toBe(used[1]!.container_id);
    // Used once and gone; one fresh container waits in its place (the second maker's was refused).
    const next = (await waiting(k))!;
    expect(next.id).not.toBe(left.id);
    await until(
      async () => (await engine.listContainers([LABEL.warm])).every((c) => c.id !== left.id),
      'removed',
    );
  });

  it('reports an OOM kill although the engine removes it on its exit', async () => {
    const k = await key(249, { memoryMb: 64, pids: 64 });
    warmKeys.push(k);
    await leaveWarm(engine, k, 60, quiet);
    const sandbox = makeSandbox({
      workspacePoolSize: 1,
      workspacePoolLimits: k.limits,
      oneShot: true,
      keepWarm: { idleS: 2 },
    });
    const ledger = Ledger.open(join(dir, 'oom.db'));
    const runId = createRun(ledger, { kind: 'run_test', repo, owner: 'test' });
    const ctx = { sandbox, ledger, runId, owner: 'test', origin: 'user' as const, repoRoot: repo };
    try {
      const claimed = (await waiting(k))!.id;
      sandbox.prestart();
      const { receipt, callId } = await execute(ctx, { code: 'b = bytearray(512 << 20)' }, k.limits);
      expect(receipt).toMatchObject({ container_id: claimed, warm: true, exit_code: 137, oom_killed: true });
      expect(getExecution(ledger, callId)?.oom_killed).toBe(1);
    } finally {
      await sandbox.close();
      ledger.close();
    }
  });

  it('exits and is removed after its idle time unclaimed', async () => {
    const k = await key(248);
    warmKeys.push(k);
    await leaveWarm(engine, k, 2, quiet);
    expect(await waiting(k)).not.toBeNull();
    await until(async () => (await waiting(k)) === null, 'gone after its idle time');
  });

  it('is removed by the sweep once past its idle time, and left while it is not', async () => {
    const k = await key(247);
    warmKeys.push(k);
    await leaveWarm(engine, k, 600, quiet);
    const { id } = (await waiting(k))!;
    expect(await sweepWarm(engine, quiet)).not.toContain(id);
    expect(await waiting(k)).not.toBeNull();
    const later = Date.now() + 600_000 + 61_000;
    expect(await sweepWarm(engine, quiet, later)).toContain(id);
    expect(await waiting(k)).toBeNull();
  });
});
