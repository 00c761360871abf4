// The pure parts of running on Podman: telling the engine apart, image names compared short, the
// tmpfs spelling, and the read-back of hardening settings (what a rootless cgroup v1 engine lacks).
import { describe, expect, it } from 'vitest';
import {
  describeEngine,
  dockerIdentity,
  kindOf,
  podmanIdentity,
  type EngineIdentity,
} from '../../runtime/engine/engine-identity.js';
import { localCandidates, shortTag } from '../../runtime/engine/image-names.js';
import { podmanTmpfs } from '../../runtime/engine/podman-compat.js';
import { acceptedSettings, requireEnforced, unenforcedSettings } from '../../runtime/sandbox/enforcement.js';
import { containerConfig } from '../../runtime/sandbox/hardening.js';
import { DEFAULT_LIMITS } from '../../runtime/sandbox/spec.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { oomCheck } from '../../cli/doctor/oom-check.js';

const podmanVersion = {
  Version: '4.3.1',
  ApiVersion: '1.41',
  Os: 'linux',
  Arch: 'amd64',
  Platform: { Name: 'linux/amd64/debian-12' },
  Components: [{ Name: 'Podman Engine', Version: '4.3.1' }],
};
const libpod = (rootless: boolean, cgroupVersion: string, controllers: string[]) => ({
  host: {
    cgroupVersion,
    cgroupControllers: controllers,
    security: { rootless, seccompEnabled: true, capabilities: 'CAP_CHOWN,CAP_KILL,CAP_SETUID' },
  },
});

const asked = containerConfig({ image: 'img', argv: ['true'], limits: DEFAULT_LIMITS, labels: {} });
/** What an engine that applied everything records (Podman's spelling of CapDrop ALL). */
const faithful = {
  User: '1000:1000',
  HostConfig: {
    ...asked.HostConfig,
    CapDrop: ['CHOWN', 'KILL', 'SETUID', 'MKNOD'],
    CapAdd: [],
    IpcMode: 'shareable',
  },
};

describe('engine identity', () => {
  it('tells Podman from Docker by /version and reads rootless and cgroups from /libpod/info', () => {
    expect(kindOf(podmanVersion)).toBe('podman');
    expect(kindOf({ Version: '20.10', ApiVersion: '1.41', Os: 'linux', Arch: 'amd64' })).toBe('docker');
    const id = podmanIdentity(podmanVersion, libpod(true, 'v1', []), 'unix:///tmp/p.sock');
    expect(id).toMatchObject({ kind: 'podman', rootless: true, cgroupVersion: '1', seccomp: true });
    expect(id.defaultCapabilities).toEqual(['CHOWN', 'KILL', 'SETUID']);
    expect(describeEngine(id)).toBe(
      'podman 4.3.1 (rootless, cgroup v1), API 1.41 (linux/amd64) at unix:///tmp/p.sock',
    );
    const docker = dockerIdentity(
      { Version: '20.10.24', ApiVersion: '1.41', Os: 'linux', Arch: 'amd64' },
      { CgroupVersion: '2', SecurityOptions: ['name=seccomp,profile=default', 'name=rootless'] },
      'unix:///var/run/docker.sock',
    );
    expect(docker).toMatchObject({ kind: 'docker', rootless: true, cgroupVersion: '2', seccomp: true });
  });

  it('knows Podman reports memory kills from 5.0 on, and Docker always', () => {
    const at = (v: string) =>
      podmanIdentity(
        { ...podmanVersion, Version: v, Components: [{ Name: 'Podman Engine', Version: v }] },
        libpod(false, 'v2', ['memory', 'pids', 'cpu']),
        'unix:///tmp/p.sock',
      ).reportsOomKills;
    expect([at('4.3.1'), at('4.9.4'), at('5.0.0'), at('v5.2.1'), at('6.0.0-dev')]).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    const docker = dockerIdentity(
      { Version: '20.10.24', ApiVersion: '1.41', Os: 'linux', Arch: 'amd64' },
      {},
      'unix:///var/run/docker.sock',
    );
    expect(docker.reportsOomKills).toBe(true);
    expect(oomCheck(docker)).toMatchObject({ name: 'oom', ok: true, reported: true });
    const old = oomCheck(podmanIdentity(podmanVersion, libpod(false, 'v1', []), 'unix:///tmp/p.sock'));
    expect(old).toMatchObject({ name: 'oom', ok: true, reported: false });
    expect(old.detail).toBe(
      'podman 4.3.1 does not report out-of-memory kills (Podman 5.0 and later do): a run killed at ' +
        'its memory limit has oom_killed false, exit 137 and the reason "killed by SIGKILL (this engine ' +
        'does not report OOM kills; the memory limit is the likely cause)"',
    );
  });
});

describe('image names', () => {
  it('drops the registry an engine adds to a local name, and tries localhost/ for a short one', () => {
    expect(shortTag('docker.io/library/piper-sandbox-python:abc')).toBe('piper-sandbox-python:abc');
    expect(shortTag('localhost/piper-sandbox-python:abc')).toBe('piper-sandbox-python:abc');
    expect(shortTag('quay.io/x/y:1')).toBe('quay.io/x/y:1');
    expect(localCandidates('piper-env-x:1')).toEqual(['piper-env-x:1', 'localhost/piper-env-x:1']);
    expect(localCandidates('sha256:0123')).toEqual(['sha256:0123']);
    expect(localCandidates('registry.example:5000/a:1')).toEqual(['registry.example:5000/a:1']);
  });

  it("spells a tmpfs owned by the container's user as Podman's U, and leaves others alone", () => {
    expect(
      podmanTmpfs(
        { '/work': 'rw,size=64m,uid=1000,gid=1000,mode=0755', '/tmp': 'rw,mode=1777' },
        '1000:1000',
      ),
    ).toEqual({ '/work': 'rw,size=64m,mode=0755,U', '/tmp': 'rw,mode=1777' });
    expect(podmanTmpfs({ '/x': 'uid=5,gid=5' }, '1000:1000')).toEqual({ '/x': 'uid=5,gid=5' });
  });
});

describe('hardening read-back', () => {
  const rootful: EngineIdentity = podmanIdentity(
    podmanVersion,
    libpod(false, 'v1', ['memory', 'pids', 'cpu']),
    'x',
  );
  const rootlessV1 = podmanIdentity(podmanVersion, libpod(true, 'v1', []), 'x');
  const rootlessV2 = podmanIdentity(podmanVersion, libpod(true, 'v2', ['memory', 'cpu']), 'x');

  it('finds nothing missing when the engine recorded every setting', () => {
    expect(unenforcedSettings(asked, faithful, rootful)).toEqual([]);
  });

  it('names memory, pids and cpus on rootless cgroup v1, and the undelegated controller on v2', () => {
    expect(unenforcedSettings(asked, faithful, rootlessV1).map((u) => u.setting)).toEqual([
      'memory',
      'pids',
      'cpus',
    ]);
    expect(unenforcedSettings(asked, faithful, rootlessV2).map((u) => u.setting)).toEqual(['pids']);
  });

  it('names each setting the engine dropped from what it recorded', () => {
    const dropped = {
      User: '',
      HostConfig: {
        ...faithful.HostConfig,
        NetworkMode: 'bridge',
        CapDrop: [],
        SecurityOpt: [],
        ReadonlyRootfs: false,
        Memory: 0,
        PidsLimit: 0,
        NanoCpus: 0,
        Ulimits: [],
        Tmpfs: {},
        Init: false,
      },
    };
    expect(
      unenforcedSettings(asked, dropped, rootful)
        .map((u) => u.setting)
        .sort(),
    ).toEqual(
      [
        'capabilities',
        'cpus',
        'init',
        'memory',
        'network',
        'no-new-privileges',
        'pids',
        'tmpfs',
        'ulimits',
        'user',
      ].sort(),
    );
  });

  it('refuses unless every missing setting is accepted by name', () => {
    const unenforced = unenforcedSettings(asked, faithful, rootlessV1);
    let caught: unknown;
    try {
      requireEnforced({ engine: rootlessV1, probed: true, unenforced, accepted: ['memory'] });
    } catch (error) {
      caught = error;
    }
    expect(isRuntimeError(caught, 'hardening_unavailable')).toBe(true);
    expect((caught as Error).message).toContain('pids');
    expect((caught as Error).message).not.toContain('memory (');
    expect(
      requireEnforced({ engine: rootlessV1, probed: true, unenforced, accepted: ['memory', 'pids', 'cpus'] }),
    ).toBeTruthy();
    expect(acceptedSettings('memory, pids')).toEqual(['memory', 'pids']);
    expect(() => acceptedSettings('memroy')).toThrow(/no hardening setting/);
  });
});
