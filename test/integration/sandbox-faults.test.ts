// The fault list of issue 2, each against the real engine: time, processes, memory, output,
// network, filesystem, escaping children. What matters is the receipt and that nothing is left.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { engine, expectNoContainersLeft, makeSandbox, python } from '../helpers/sandbox.js';

const sandbox = makeSandbox({ concurrency: 8 });

afterAll(async () => {
  await sandbox.close();
  await expectNoContainersLeft();
});

describe('sandbox faults (real engine)', () => {
  it('kills an infinite loop at the time limit and returns within timeout + 2 s', async () => {
    const t0 = Date.now();
    const r = await sandbox.run(python('while True: pass', { timeoutS: 2 }));
    const seconds = (Date.now() - t0) / 1000;
    expect(r.timed_out).toBe(true);
    expect(r.exit_code).toBe(137);
    expect(r.oom_killed).toBe(false);
    expect(seconds).toBeLessThan(4);
  });

  it('contains a fork bomb with the pids limit and still gives a receipt', async () => {
    const bomb = `
import os, time
n = 0
for _ in range(10000):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
    except OSError as e:
        print("fork refused after", n, "children:", e.strerror)
        break
os._exit(0)
`;
    const r = await sandbox.run(python(bomb, { pids: 64, timeoutS: 20 }));
    expect(r.timed_out).toBe(false);
    expect(r.stdout).toMatch(/fork refused after \d+ children: Resource temporarily unavailable/);
    const refusedAfter = Number(/after (\d+)/.exec(r.stdout)![1]);
    expect(refusedAfter).toBeLessThan(64);
    expect(r.exit_code).toBe(0);
  });

  it('reports an out-of-memory kill', async () => {
    const r = await sandbox.run(python('x = bytearray(2**31)\nprint("allocated")', { memoryMb: 256 }));
    expect(r.oom_killed).toBe(true);
    expect(r.exit_code).toBe(137);
    expect(r.stdout).not.toContain('allocated');
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

  it('has no network', async () => {
    const code = `
import socket
for target in [("127.0.0.1", 80), ("10.0.0.1", 80), ("1.1.1.1", 53)]:
    try:
        socket.create_connection(target, timeout=1)
        print("connected", target)
    except OSError as e:
        print("refused", target[0], type(e).__name__)
print(sorted(name for _, name in socket.if_nameindex()))
`;
    const r = await sandbox.run(python(code));
    expect(r.stdout).not.toContain('connected');
    expect(r.stdout.match(/refused/g)).toHaveLength(3);
    expect(r.stdout).toContain("['lo']");
  });

  it('keeps the root read-only and caps /tmp', async () => {
    const code = `
import os
try:
    open("/etc/piper", "w")
    print("root writable")
except OSError as e:
    print("root:", e.strerror)
written = 0
try:
    with open("/tmp/fill", "wb") as f:
        while True:
            f.write(b"x" * (1 << 20))
            f.flush()
            written += 1
except OSError as e:
    print("tmp full after", written, "MiB:", e.strerror)
`;
    const r = await sandbox.run(python(code, { tmpfsMb: 16 }));
    expect(r.stdout).toContain('root: Read-only file system');
    expect(r.stdout).toMatch(/tmp full after 1[56] MiB: No space left on device/);
  });

  it('runs unprivileged: uid 1000, no capabilities, no_new_privs', async () => {
    const code = `
import os
status = open("/proc/self/status").read()
fields = dict(line.split(":\\t", 1) for line in status.splitlines() if ":\\t" in line)
print(os.getuid(), os.getgid(), fields["CapEff"].strip(), fields["CapBnd"].strip(), fields["NoNewPrivs"].strip())
`;
    const r = await sandbox.run(python(code));
    expect(r.stdout.trim()).toBe('1000 1000 0000000000000000 0000000000000000 1');
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
