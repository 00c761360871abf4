import { describe, expect, it } from 'vitest';
import { containerConfig } from '../../runtime/sandbox/hardening.js';
import { Limiter } from '../../runtime/sandbox/limiter.js';
import { currentOwner, formatOwner, ownerAlive, parseOwner } from '../../runtime/sandbox/owner.js';
import { DEFAULT_LIMITS, resolveLimits } from '../../runtime/sandbox/spec.js';

describe('Limiter', () => {
  it('admits at most size holders and serves the queue in order', async () => {
    const limiter = new Limiter(2);
    const order: number[] = [];
    const r1 = await limiter.acquire();
    const r2 = await limiter.acquire();
    const waiting = [3, 4].map((n) => limiter.acquire().then((release) => (order.push(n), release)));
    expect(limiter.queued).toBe(2);
    r1();
    r1(); // a second release of the same slot is ignored
    const r3 = await waiting[0]!;
    expect(order).toEqual([3]);
    r2();
    await waiting[1];
    expect(order).toEqual([3, 4]);
    r3();
  });
});

describe('owner', () => {
  it('round-trips and knows this process is alive and a gone pid is not', () => {
    const me = currentOwner();
    expect(parseOwner(formatOwner(me))).toEqual(me);
    expect(ownerAlive(me)).toBe(true);
    expect(ownerAlive({ ...me, pid: 2 ** 22 + 1 })).toBe(false);
    expect(ownerAlive({ ...me, started: '1' })).toBe(false); // pid reused by another process
    expect(ownerAlive({ host: 'another-host', pid: 1, started: '' })).toBe(true);
  });
});

describe('hardening', () => {
  it('builds the hardened container config', () => {
    const c = containerConfig({
      image: 'img',
      argv: ['python3'],
      limits: DEFAULT_LIMITS,
      labels: { a: 'b' },
    });
    expect(c.User).toBe('1000:1000');
    // NetworkMode none alone: the engine then names localhost in the container's /etc/hosts.
    expect(c).not.toHaveProperty('NetworkDisabled');
    expect(c.HostConfig).toMatchObject({
      NetworkMode: 'none',
      // IPv6 on loopback: /etc/hosts names ::1 localhost, which Node tries first.
      Sysctls: { 'net.ipv6.conf.lo.disable_ipv6': '0' },
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: false,
      Init: true,
      PidsLimit: 128,
      Memory: 512 * 1024 * 1024,
      MemorySwap: 512 * 1024 * 1024,
      NanoCpus: 1e9,
      LogConfig: { Type: 'none', Config: {} },
    });
    const tmpfs = c.HostConfig.Tmpfs as Record<string, string>;
    expect(Object.keys(tmpfs)).toEqual(['/tmp', '/var/tmp', '/work']);
    for (const options of Object.values(tmpfs)) expect(options).toMatch(/^rw,exec,nosuid,nodev,size=64m,/);
    expect(c.HostConfig).not.toHaveProperty('Binds');
    expect(c.HostConfig).not.toHaveProperty('Mounts');
  });

  it('rejects impossible limits', () => {
    expect(() => resolveLimits({ timeoutS: 0 })).toThrow(/timeoutS/);
    expect(() => resolveLimits({ memoryMb: 2 })).toThrow(/at least 6/);
    expect(resolveLimits({ pids: undefined }).pids).toBe(DEFAULT_LIMITS.pids);
  });
});
