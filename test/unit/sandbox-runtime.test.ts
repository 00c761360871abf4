// The sandbox's OCI runtime (gVisor `runsc` as the stronger option): containerConfig sets
// HostConfig.Runtime only when one is named and changes nothing else; a runtime the engine does not
// offer is a precise `runtime_unavailable` error; PIPER_SANDBOX_RUNTIME / `sandboxRuntime` is
// configuration, and a repository's file may not change it without the user's trust.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { UsageError } from '../../core/exit-codes.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { containerConfig } from '../../runtime/sandbox/hardening.js';
import { chooseRuntime } from '../../runtime/sandbox/sandbox-runtime.js';
import { DEFAULT_LIMITS } from '../../runtime/sandbox/spec.js';

const base = { image: 'img', argv: ['python3'], limits: DEFAULT_LIMITS, labels: { a: 'b' } };
const OFFERED = { names: ['io.containerd.runc.v2', 'runc'], default: 'runc' };

describe('containerConfig with a runtime', () => {
  it('sets HostConfig.Runtime and keeps every other hardening setting as it was', () => {
    // gVisor's own network stack has IPv6 on its loopback and takes no host sysctls: only runc's
    // containers are given the loopback sysctl.
    const { Sysctls, ...plainHost } = containerConfig(base).HostConfig;
    expect(Sysctls).toEqual({ 'net.ipv6.conf.lo.disable_ipv6': '0' });
    const plain = { ...containerConfig(base), HostConfig: plainHost };
    const gvisor = containerConfig({ ...base, runtime: 'runsc' });
    expect(gvisor.HostConfig.Runtime).toBe('runsc');
    const { Runtime: _runtime, ...rest } = gvisor.HostConfig;
    expect(rest).toEqual(plain.HostConfig);
    expect({ ...gvisor, HostConfig: rest }).toEqual(plain);
  });

  it('names no runtime when none is asked for (the engine default applies)', () => {
    expect(containerConfig(base).HostConfig).not.toHaveProperty('Runtime');
    expect(containerConfig({ ...base, runtime: null }).HostConfig).not.toHaveProperty('Runtime');
  });
});

describe('chooseRuntime', () => {
  it("is the engine's default when none is asked for, and the one asked for when offered", () => {
    expect(chooseRuntime(undefined, OFFERED)).toBe('runc');
    expect(chooseRuntime('', OFFERED)).toBe('runc');
    expect(chooseRuntime('runc', OFFERED)).toBe('runc');
    expect(chooseRuntime('runsc', { names: ['runc', 'runsc'], default: 'runc' })).toBe('runsc');
  });

  it('refuses a runtime the engine lacks, naming what it offers and how to get gVisor', () => {
    let caught: unknown;
    try {
      chooseRuntime('runsc', OFFERED);
    } catch (error) {
      caught = error;
    }
    expect(isRuntimeError(caught, 'runtime_unavailable')).toBe(true);
    const error = caught as Error & { fix: string };
    expect(error.message).toBe(
      'the sandbox runtime runsc is not offered by the engine (it offers: io.containerd.runc.v2, runc; default runc)',
    );
    expect(error.fix).toContain('install gVisor');
    expect(error.fix).toContain('PIPER_SANDBOX_RUNTIME');
  });
});

describe('sandboxRuntime configuration', () => {
  function repoWith(config: unknown): { repo: string; env: NodeJS.ProcessEnv } {
    const dir = mkdtempSync(join(tmpdir(), 'piper-runtime-'));
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, '.piper'), { recursive: true });
    writeFileSync(join(repo, '.piper', 'config.json'), JSON.stringify(config));
    return { repo, env: { XDG_CONFIG_HOME: join(dir, 'xdg') } };
  }

  it('comes from PIPER_SANDBOX_RUNTIME', () => {
    const { repo, env } = repoWith({});
    const e = loadConfig({ repo, env: { ...env, PIPER_SANDBOX_RUNTIME: 'runsc' } });
    expect(e.config.sandboxRuntime).toBe('runsc');
    expect(e.sources.sandboxRuntime).toBe('env');
  });

  it('an untrusted repository cannot change it (runsc → runc would loosen the sandbox); trusted, it can', () => {
    const { repo, env } = repoWith({ sandboxRuntime: 'runc' });
    const userFile = join(env.XDG_CONFIG_HOME!, 'piper-agent', 'config.json');
    mkdirSync(join(userFile, '..'), { recursive: true });
    writeFileSync(userFile, JSON.stringify({ sandboxRuntime: 'runsc' }));
    const untrusted = loadConfig({ repo, env });
    expect(untrusted.config.sandboxRuntime).toBe('runsc');
    expect(untrusted.ignored).toEqual([
      { key: 'sandboxRuntime', value: 'runc', reason: 'changes the sandbox runtime' },
    ]);
    expect(loadConfig({ repo, env, trustRepo: true }).config.sandboxRuntime).toBe('runc');
  });

  it('is a runtime name, not an option string', () => {
    const { repo, env } = repoWith({});
    expect(() => loadConfig({ repo, env: { ...env, PIPER_SANDBOX_RUNTIME: 'runc --privileged' } })).toThrow(
      UsageError,
    );
  });
});
