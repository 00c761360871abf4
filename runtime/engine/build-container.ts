// The body of POST /containers/create for an environment build step: root, the network the step
// is given, an init, no logging, a tmpfs /tmp, bounded memory and processes. Never a sandbox run's
// (that is runtime/sandbox/hardening.ts); a build step's confinement is chosen by its caller.

/**
 * Open files and processes per user, set rather than left to the engine: rootful Podman asks for
 * 1048576 of each, which fails to start any container where root lacks CAP_SYS_RESOURCE (a host
 * that is itself a container). Processes in a sandbox are bounded by its pids limit; this cap
 * counts the user's processes across every container, so it is generous.
 */
export const CONTAINER_ULIMITS = [
  { Name: 'nofile', Soft: 4096, Hard: 4096 },
  { Name: 'nproc', Soft: 8192, Hard: 8192 },
];

export interface BuildContainerConfig {
  Image: string;
  Cmd: string[];
  Labels: Record<string, string>;
  NetworkMode: string;
  Memory: number;
  PidsLimit: number;
  /** Capabilities to drop / keep and security options (the offline step drops all but a few). */
  CapDrop?: string[];
  CapAdd?: string[];
  SecurityOpt?: string[];
}

export function buildContainerBody(config: BuildContainerConfig) {
  return {
    Image: config.Image,
    Cmd: config.Cmd,
    User: '0:0',
    WorkingDir: '/',
    Labels: config.Labels,
    Tty: false,
    HostConfig: {
      NetworkMode: config.NetworkMode,
      Memory: config.Memory,
      MemorySwap: config.Memory,
      PidsLimit: config.PidsLimit,
      Init: true,
      LogConfig: { Type: 'none', Config: {} },
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=1024m,mode=1777' },
      Ulimits: CONTAINER_ULIMITS,
      CapDrop: config.CapDrop,
      CapAdd: config.CapAdd,
      SecurityOpt: config.SecurityOpt,
    },
  };
}
