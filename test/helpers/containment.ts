// The containment cases of the sandbox, against any engine: the main Docker engine
// (sandbox-faults.test.ts) and Podman (podman-engine.test.ts) run the same ones. The cgroup cases
// (processes, memory) are left out where the engine cannot bound them and the run was accepted
// without them (PIPER_ACCEPT_UNENFORCED). A memory kill is reported as one only where the engine
// says so (Docker, Podman 5); elsewhere the receipt names a SIGKILL and its likely cause.
import { it, expect } from 'vitest';
import { UNREPORTED_KILL_REASON } from '../../runtime/sandbox/container-run.js';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { python } from './sandbox.js';

export interface ContainmentOptions {
  /** Whether the engine bounds processes and memory (false: rootless on cgroup v1). */
  cgroupLimits: boolean;
  /** Whether the engine reports a memory kill (read when the case runs, once the engine is known). */
  oomReported?: () => boolean;
}

export function containmentCases(
  sandboxOf: () => Sandbox,
  opts: ContainmentOptions = { cgroupLimits: true },
): void {
  const oomReported = opts.oomReported ?? (() => true);
  const sandbox = { run: (...args: Parameters<Sandbox['run']>) => sandboxOf().run(...args) };
  if (opts.cgroupLimits) {
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
    it('kills a memory hog at the memory limit, reported as the engine can', async () => {
      const r = await sandbox.run(python('x = bytearray(2**31)\nprint("allocated")', { memoryMb: 256 }));
      // The limit holds either way: the 2 GiB allocation never completes, the kernel kills it.
      expect(r.exit_code).toBe(137);
      expect(r.timed_out).toBe(false);
      expect(r.stdout).not.toContain('allocated');
      if (oomReported()) {
        expect(r.oom_killed).toBe(true);
        expect(r).not.toHaveProperty('kill_reason');
      } else {
        expect(r.oom_killed).toBe(false);
        expect(r.kill_reason).toBe(UNREPORTED_KILL_REASON);
      }
    });
  }
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

  it('refuses root-owned paths with EACCES and caps /tmp and /var/tmp', async () => {
    const code = `
import os
try:
    open("/etc/piper", "w")
    print("root writable")
except OSError as e:
    print("root:", e.strerror)
for tmp in ("/tmp", "/var/tmp"):
    written = 0
    try:
        with open(tmp + "/fill", "wb") as f:
            while True:
                f.write(b"x" * (1 << 20))
                f.flush()
                written += 1
    except OSError as e:
        print(tmp, "full after", written, "MiB:", e.strerror)
    os.remove(tmp + "/fill")
`;
    const r = await sandbox.run(python(code, { tmpfsMb: 16 }));
    expect(r.stdout).toContain('root: Permission denied');
    expect(r.stdout).toMatch(/^\/tmp full after 1[56] MiB: No space left on device$/m);
    expect(r.stdout).toMatch(/^\/var\/tmp full after 1[56] MiB: No space left on device$/m);
  });

  // The root filesystem is writable by root only: the sandbox's user must find no path on it to
  // write (the disk would be unbounded), only the size-capped tmpfs mounts.
  it("leaves the sandbox's user no writable path but its tmpfs mounts", async () => {
    const code = `
import os
mounts = {line.split()[4] for line in open("/proc/self/mountinfo")}
skip = mounts | {"/proc", "/sys", "/dev"}
writable = []
for top, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(top, d) not in skip]
    for path in [top] + [os.path.join(top, n) for n in dirs + files]:
        if path in skip or os.path.islink(path):
            continue
        if os.access(path, os.W_OK):
            writable.append(path)
print("writable:", sorted(set(writable)))
print("mounts:", sorted(m for m in mounts if m in ("/tmp", "/var/tmp", "/work")))
`;
    const r = await sandbox.run(python(code, { timeoutS: 60 }));
    expect(r.stdout).toContain('writable: []');
    expect(r.stdout).toContain("mounts: ['/tmp', '/var/tmp', '/work']");
  });

  it('keeps nothing a run wrote for the next run', async () => {
    const write = `
for path in ("/tmp/mark", "/var/tmp/mark", "/work/mark"):
    open(path, "w").write("x")
print("written")
`;
    const check = `
import os
print("left:", [p for p in ("/tmp/mark", "/var/tmp/mark", "/work/mark") if os.path.exists(p)])
`;
    expect((await sandbox.run(python(write))).stdout).toContain('written');
    expect((await sandbox.run(python(check))).stdout).toContain('left: []');
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
}
