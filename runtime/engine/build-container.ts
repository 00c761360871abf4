// The body of POST /containers/create for an environment build step: root, the network the step
// is given, an init, no logging, a tmpfs /tmp, bounded memory and processes. Never a sandbox run's
// (that is runtime/sandbox/hardening.ts); a build step's confinement is chosen by its caller.

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
      CapDrop: config.CapDrop,
      CapAdd: config.CapAdd,
      SecurityOpt: config.SecurityOpt,
    },
  };
}
