// A one-shot command's sandbox (SandboxOptions.oneShot): its one container is started while the
// command still records the run and plans the snapshot, serves the call, and is the only one —
// the pool fills once, so nothing is started after the call only to be removed at the exit.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_TEST_LIMITS, runTest } from '../../primitives/tools/run-test/effect.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';
import { engine, expectNoContainersLeft, makeSandbox } from '../helpers/sandbox.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { getExecution } from '../../runtime/ledger/calls.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-one-shot-'));
const repo = join(dir, 'repo');
cpSync(join(packageRoot(), 'test', 'fixtures', 'suites', 'passing'), repo, { recursive: true });
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
git('init', '-q');
git('add', '-A');
git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-qm', 'fixture');

afterAll(async () => {
  await expectNoContainersLeft();
  rmSync(dir, { recursive: true, force: true });
});

describe('a one-shot sandbox', () => {
  it('serves its first call from the container it prestarted, the second cold, and leaves none', async () => {
    const sandbox = makeSandbox({
      workspacePoolSize: 1,
      workspacePoolLimits: RUN_TEST_LIMITS,
      oneShot: true,
    });
    const ledger = Ledger.open(join(mkdtempSync(join(dir, 'ledger-')), 'ledger.db'));
    const runId = createRun(ledger, { kind: 'run_test', repo, owner: 'test' });
    const ctx = { sandbox, ledger, runId, owner: 'test', origin: 'user' as const, repoRoot: repo };
    try {
      sandbox.prestart();
      const first = await runTest(ctx, { target: 'tests/' });
      const second = await runTest(ctx, { target: 'tests/' });
      expect([first.result.passed, second.result.passed]).toEqual([true, true]);
      expect(getExecution(ledger, first.callId)?.warm).toBe(1);
      // No refill after the first call: the second was created for it.
      expect(getExecution(ledger, second.callId)?.warm).toBe(0);
      // The used ones have exited (their removal is in the background); none is waiting for a call.
      const pooled = await engine.listContainers([
        `${LABEL.owner}=${formatOwner(currentOwner())}`,
        LABEL.pool,
      ]);
      expect(pooled.filter((c) => c.state !== 'exited')).toEqual([]);
    } finally {
      await sandbox.close();
      ledger.close();
    }
    await expectNoContainersLeft();
  });

  it('runs `piper-agent run-test` on the prestarted container, recorded as warm', async () => {
    const ledgerFile = join(dir, 'cli-ledger.db');
    const out = await runCli(['run-test', 'tests/', '--repo', repo, '--ledger', ledgerFile, '--json']);
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as { call_id: string; passed: boolean; counts: { passed: number } };
    expect(result).toMatchObject({ passed: true, counts: { passed: 2 } });
    const ledger = Ledger.open(ledgerFile);
    try {
      expect(getExecution(ledger, result.call_id)).toMatchObject({ warm: 1, exit_code: 0 });
    } finally {
      ledger.close();
    }
  });
});
