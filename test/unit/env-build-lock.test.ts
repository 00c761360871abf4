// The lock of one image build (runtime/host/build-lock.ts) on real files: held, released,
// waited for with one line naming its holder and a bounded wait, and taken over from a dead owner.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireBuildLock } from '../../runtime/host/build-lock.js';

const cache = mkdtempSync(join(tmpdir(), 'piper-build-lock-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));
const lockDir = join(cache, 'piper-agent', 'env-locks');

function options(env: Record<string, string> = {}) {
  const lines: string[] = [];
  return { lines, opts: { log: (l: string) => lines.push(l), env: { XDG_CACHE_HOME: cache, ...env } } };
}

describe('the build lock of one environment image', () => {
  it('is a file naming its owner while held, gone once released', async () => {
    const { lines, opts } = options();
    const lock = await acquireBuildLock('piper-env-aaa-key1', opts);
    const text = JSON.parse(readFileSync(join(lockDir, 'piper-env-aaa-key1.lock'), 'utf8')) as {
      owner: string;
    };
    expect(text.owner).toMatch(new RegExp(`^${hostname()}:${process.pid}:\\d+$`));
    expect(lock.waited).toBe(false);
    lock.release();
    expect(readdirSync(lockDir).filter((f) => f.startsWith('piper-env-aaa-key1'))).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('makes a second build wait, saying once whose build it waits for, and bounds the wait', async () => {
    const held = await acquireBuildLock('piper-env-bbb-key2', options().opts);
    const { lines, opts } = options({ PIPER_ENV_BUILD_WAIT_S: '1' });
    await expect(acquireBuildLock('piper-env-bbb-key2', opts)).rejects.toThrow(
      new RegExp(
        `waited 1 s for the build of this environment by process ${process.pid} on ${hostname()}, since `,
      ),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^waiting for the build of this environment by process ${process.pid} on `),
    );
    // Released, the next one gets it and knows another build held it (its image may exist now).
    held.release();
    const next = await acquireBuildLock('piper-env-bbb-key2', options().opts);
    expect(next.waited).toBe(false);
    next.release();
  });

  it('names what it builds in the waiting line when told (a sandbox base image)', async () => {
    const held = await acquireBuildLock('piper-sandbox-python-abc', options().opts);
    const { lines, opts } = options({ PIPER_ENV_BUILD_WAIT_S: '0' });
    await expect(
      acquireBuildLock('piper-sandbox-python-abc', { ...opts, what: 'sandbox image' }),
    ).rejects.toThrow(/waited 0 s for the build of this sandbox image by process/);
    expect(lines[0]).toMatch(/^waiting for the build of this sandbox image by process /);
    held.release();
  });

  it('is handed to the waiter as soon as its holder releases it', async () => {
    const held = await acquireBuildLock('piper-env-ccc-key3', options().opts);
    const { lines, opts } = options();
    // Its first try runs before the call returns: it found the lock held and said so.
    const waiting = acquireBuildLock('piper-env-ccc-key3', opts);
    expect(lines).toHaveLength(1);
    held.release();
    const got = await waiting;
    expect(got.waited).toBe(true);
    expect(lines).toHaveLength(1);
    got.release();
  });

  it('takes over the lock of a dead process at once', async () => {
    // A pid that was a process of this host and is not any more.
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout.trim());
    const file = join(lockDir, 'piper-env-ddd-key4.lock');
    writeFileSync(
      file,
      JSON.stringify({ owner: `${hostname()}:${deadPid}:12345`, since: '2026-01-01T00:00:00.000Z' }),
    );
    const { lines, opts } = options();
    const lock = await acquireBuildLock('piper-env-ddd-key4', opts);
    expect(lines).toEqual([]);
    expect(lock.waited).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain(`:${process.pid}:`);
    lock.release();
    expect(existsSync(file)).toBe(false);
  });
});
