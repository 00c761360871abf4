// The container every sandbox run gets (docs/sandbox.md): no network, no capabilities, no
// privilege gain, an unprivileged user, size-capped tmpfs for the only paths that user can write, bounded pids / memory / open files (no swap) / CPU, an init process that reaps and forwards signals,
// no logging (output is read from the attach stream), labels for the sweep. No host path, ever.
// The root filesystem is writable as on a CI runner, where a non-root test writing a root-owned
// path gets EACCES (a read-only root gives EROFS, and suites that check the errno fail): the user
// has no capability and owns nothing there, and the image leaves no world-writable path but /tmp
// and /var/tmp (finish-rootfs.sh), which are tmpfs here, so nothing reaches the container's disk
// layer, which goes with the container. The tmpfs mounts allow exec: a test runs the script it
// wrote in tmp_path, as on a runner.
// The OCI runtime is the engine's default unless one is named: `runsc` (gVisor) puts a user-space
// kernel between the sandbox and the host's, which a container alone does not.
import { CONTAINER_ULIMITS } from '../engine/build-container.js';
import type { ContainerConfig } from '../engine/docker-engine.js';
import type { Limits } from './spec.js';

const SANDBOX_USER = '1000:1000';
const WORKDIR = '/work';

export const LABEL = {
  run: 'piper.run',
  call: 'piper.call',
  owner: 'piper.owner',
  /** Set when the owner runs inside a container: that container's id. */
  ownerContainer: 'piper.owner.container',
  pool: 'piper.pool',
  /** A container kept warm between one-shot commands (warm-container.ts): no owner, its own idle exit. */
  warm: 'piper.warm',
  /** When a warm container's own idle exit is due, in ms since the epoch (the sweep's safety net). */
  warmExpires: 'piper.warm.expires',
} as const;

const BASE_ENV = [
  'PYTHONDONTWRITEBYTECODE=1',
  'PYTHONUNBUFFERED=1',
  'PYTEST_ADDOPTS=-p no:cacheprovider',
  'HOME=/tmp',
  'LANG=C.UTF-8',
  `PIPER_WORKDIR=${WORKDIR}`,
];

export function containerConfig(opts: {
  image: string;
  argv: string[];
  limits: Limits;
  labels: Record<string, string>;
  env?: string[];
  /** HostConfig.Runtime (e.g. `runsc`); absent: the engine's default runtime. */
  runtime?: string | null;
  /**
   * The engine removes the container when it exits: only a warm container, which outlives the
   * process that made it. Not a hardening setting; everything else is the same for every run.
   */
  autoRemove?: boolean;
}): ContainerConfig {
  const { limits } = opts;
  const memory = Math.round(limits.memoryMb * 1024 * 1024);
  const tmpfs = `rw,exec,nosuid,nodev,size=${limits.tmpfsMb}m`;
  return {
    Image: opts.image,
    Cmd: opts.argv,
    User: SANDBOX_USER,
    WorkingDir: WORKDIR,
    Env: [...BASE_ENV, ...(opts.env ?? [])],
    Labels: opts.labels,
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    // No network: a namespace of its own holding only loopback. Not `NetworkDisabled`, with which the
    // engine writes no /etc/hosts and `localhost` (which tests listen on) cannot be resolved.
    HostConfig: {
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: false,
      Tmpfs: {
        '/tmp': `${tmpfs},mode=1777`,
        '/var/tmp': `${tmpfs},mode=1777`,
        [WORKDIR]: `${tmpfs},uid=1000,gid=1000,mode=0755`,
      },
      PidsLimit: limits.pids,
      Ulimits: CONTAINER_ULIMITS,
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round(limits.cpus * 1e9),
      Init: true,
      LogConfig: { Type: 'none', Config: {} },
      IpcMode: 'private',
      Privileged: false,
      AutoRemove: opts.autoRemove ?? false,
      ...loopbackSysctls(opts.runtime),
      ...(opts.runtime ? { Runtime: opts.runtime } : {}),
    },
  };
}

/**
 * IPv6 on the namespace's loopback, which the engine turns off with NetworkMode none: /etc/hosts
 * names `::1 localhost`, so a test server on `localhost` or `::1` (Node tries ::1 first) otherwise
 * fails with EADDRNOTAVAIL. The namespace still holds lo alone, so no IPv6 route leads out either.
 * gVisor's own network stack keeps IPv6 loopback on and takes no host sysctls.
 */
function loopbackSysctls(runtime: string | null | undefined): { Sysctls?: Record<string, string> } {
  return runtime === 'runsc' ? {} : { Sysctls: { 'net.ipv6.conf.lo.disable_ipv6': '0' } };
}
