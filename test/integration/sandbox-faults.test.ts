// The sandbox fault list, each against the real engine: time, processes, memory, output,
// network, filesystem, escaping children. What matters is the receipt and that nothing is left.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { containmentCases } from '../helpers/containment.js';
import { engine, expectNoContainersLeft, makeSandbox, python } from '../helpers/sandbox.js';

const sandbox = makeSandbox({ concurrency: 8 });

afterAll(async () => {
  await sandbox.close();
  await expectNoContainersLeft();
});

describe('sandbox faults (real engine)', () => {
  containmentCases(() => sandbox);

  it('kills an infinite loop at the time limit and returns within timeout + 2 s', async () => {
    const t0 = Date.now();
    const r = await sandbox.run(python('while True: pass', { timeoutS: 2 }));
    const seconds = (Date.now() - t0) / 1000;
    expect(r.timed_out).toBe(true);
    expect(r.exit_code).toBe(137);
    expect(r.oom_killed).toBe(false);
    expect(seconds).toBeLessThan(4);
  });

  it('drains 200 MB of stdout: truncated, exact count and sha256, bounded host memory', async () => {
    const rssBefore = process.memoryUsage().rss;
    const code = `
import sys
block = (b"0123456789abcdef" * 4096)  # 64 KiB
out = sys.stdout.buffer
for _ in range(3200):
    out.write(block)
out.flush()
`;
    const r = await sandbox.run(python(code, { timeoutS: 60, outputCapBytes: 4096 }));
    const block = Buffer.from('0123456789abcdef'.repeat(4096));
    const expected = createHash('sha256');
    for (let i = 0; i < 3200; i++) expected.update(block);
    expect(r.exit_code).toBe(0);
    expect(r.stdout_bytes).toBe(3200 * 65536);
    expect(r.stdout_sha256).toBe(expected.digest('hex'));
    expect(r.stdout_truncated).toBe(true);
    expect(r.stdout.length).toBeLessThan(4200);
    expect(r.stdout.startsWith('0123456789abcdef')).toBe(true);
    expect(r.stdout).toMatch(/\[\.\.\. \d+ bytes not kept \.\.\.\]/);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024);
  });

  it('does not let a child outlive the call', async () => {
    const code = `
import subprocess
p = subprocess.Popen(["sleep", "60"], start_new_session=True)
print("child", p.pid)
`;
    const t0 = Date.now();
    const r = await sandbox.run(python(code, { timeoutS: 30 }));
    expect(r.exit_code).toBe(0);
    expect(r.timed_out).toBe(false);
    expect(Date.now() - t0).toBeLessThan(10_000);
    // The container (and with it the sleeping child's pid namespace) is gone shortly after.
    await expect
      .poll(async () => (await engine.listContainers([`${LABEL.owner}`])).map((c) => c.id), {
        timeout: 5000,
      })
      .not.toContain(r.container_id);
  });
});
