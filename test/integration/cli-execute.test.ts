// `piper-agent execute` as a process: the receipt, the ledger rows, exit codes, and what happens
// when the process is killed (-9) or interrupted in the middle of a run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { runCli, startCli } from '../helpers/cli.js';
import { engine } from '../helpers/sandbox.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { getCall, getExecution } from '../../runtime/ledger/calls.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-cli-'));
const ledgerFile = join(dir, 'ledger.db');
const base = ['--ledger', ledgerFile, '--repo', dir];

async function containersOf(pid: number) {
  const all = await engine.listContainers([LABEL.owner]);
  return all.filter((c) => (c.labels[LABEL.owner] ?? '').split(':')[1] === String(pid));
}

async function waitForContainer(pid: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const found = await containersOf(pid);
    if (found.length && found[0]!.state === 'running') return found[0]!.id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no running container of pid ${pid}`);
}

function callOf(containerId: string) {
  const ledger = Ledger.open(ledgerFile);
  try {
    const row = ledger.database.prepare('SELECT * FROM calls WHERE container_id = ?').get(containerId);
    return row as { id: string; status: string; status_reason: string | null } | undefined;
  } finally {
    ledger.close();
  }
}

afterAll(async () => {
  const leftovers = await engine.listContainers([`${LABEL.run}`]);
  expect(leftovers.filter((c) => c.labels[LABEL.pool] !== '1')).toEqual([]);
});

describe('piper-agent execute (real engine, real CLI)', () => {
  it('prints the receipt as JSON and records it in the ledger', async () => {
    const r = await runCli([
      'execute',
      ...base,
      '--json',
      '--code',
      'import sys\nprint("ok ✓")\nsys.exit(4)',
    ]);
    expect(r.code).toBe(0);
    const receipt = JSON.parse(r.stdout);
    expect(receipt).toMatchObject({
      exit_code: 4,
      stdout: 'ok ✓\n',
      timed_out: false,
      oom_killed: false,
      // Started while the command recorded its run (SandboxOptions.oneShot).
      warm: true,
    });
    expect(receipt.image_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const k of ['create_ms', 'start_ms', 'run_ms', 'total_ms'])
      expect(receipt.timings[k]).toBeGreaterThanOrEqual(0);
    const ledger = Ledger.open(ledgerFile);
    const call = getCall(ledger, receipt.call_id)!;
    expect(call.status).toBe('completed');
    expect(call.origin).toBe('user');
    const execution = getExecution(ledger, receipt.call_id)!;
    expect(execution).toMatchObject({ exit_code: 4, stdout: 'ok ✓\n', stdout_sha256: receipt.stdout_sha256 });
    expect(getRun(ledger, receipt.run_id)).toMatchObject({ kind: 'execute', outcome: 'completed' });
    ledger.close();
  });

  it('reads the program from stdin and from a file', async () => {
    const fromStdin = await runCli(['execute', ...base, '--code', '-'], { input: 'print(6 * 7)\n' });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe('42\n');
    expect(fromStdin.stderr).toMatch(/exit 0 · .* · warm · container [0-9a-f]{12}/);
    const file = join(dir, 'prog.py');
    writeFileSync(file, 'import sys\nprint("from file", file=sys.stderr)\n');
    const fromFile = await runCli(['execute', ...base, '--file', file]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stderr).toContain('from file\n');
  });

  it('applies --timeout and --memory', async () => {
    const slow = await runCli([
      'execute',
      ...base,
      '--json',
      '--timeout',
      '1',
      '--code',
      'import time\ntime.sleep(30)',
    ]);
    expect(JSON.parse(slow.stdout)).toMatchObject({ timed_out: true, exit_code: 137 });
    const big = await runCli([
      'execute',
      ...base,
      '--json',
      '--memory',
      '64',
      '--code',
      'x = bytearray(200 * 2**20)',
    ]);
    expect(JSON.parse(big.stdout)).toMatchObject({ oom_killed: true, exit_code: 137 });
  });

  it('exits 2 with the usage for bad input', async () => {
    for (const args of [
      ['--code'],
      [],
      ['--code', 'x', '--timeout', 'soon'],
      ['--code', '1', '--memory', '0'],
    ]) {
      const r = await runCli(['execute', ...base, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('Usage: piper-agent execute');
    }
    // An unknown flag gets one line: the flag that was meant, not the whole usage.
    const unknown = await runCli(['execute', ...base, '--cod', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('piper-agent execute: unknown option --cod; did you mean --code?\n');
  });

  it('exits 5 and says how to start an engine when none is reachable', async () => {
    const r = await runCli(['execute', ...base, '--code', 'print(1)'], {
      env: { DOCKER_HOST: `unix://${join(dir, 'no-engine.sock')}` },
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/no Docker engine answers at unix:\/\/.*no-engine\.sock/);
    expect(r.stderr).toMatch(/fix: .*engine up/);
  });

  it('after kill -9 mid-run, the next start removes the orphan and marks its ledger row', async () => {
    const { child, done } = startCli(['execute', ...base, '--code', 'import time\ntime.sleep(120)']);
    const containerId = await waitForContainer(child.pid!);
    expect(callOf(containerId)?.status).toBe('dispatched');
    child.kill('SIGKILL');
    await done;
    expect((await engine.listContainers([LABEL.owner])).map((c) => c.id)).toContain(containerId);

    const next = await runCli(['execute', ...base, '--code', 'print("after")']);
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/start-up sweep: removed 1 orphan container\(s\), closed 1 ledger call\(s\)/);
    expect((await engine.listContainers([LABEL.owner])).map((c) => c.id)).not.toContain(containerId);
    const call = callOf(containerId)!;
    expect(call.status).toBe('failed');
    expect(call.status_reason).toMatch(/owner process \d+ died while the call was in container/);
  });

  it('on SIGINT removes the running container, marks the call, and exits 130', async () => {
    const { child, done } = startCli(['execute', ...base, '--code', 'import time\ntime.sleep(120)']);
    const containerId = await waitForContainer(child.pid!);
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(await containersOf(child.pid!)).toEqual([]);
    const call = callOf(containerId)!;
    expect(call.status).toBe('failed');
    expect(call.status_reason).toMatch(/was interrupted \(SIGINT\)/);
  });
});
