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

/** Podman's words when the init binary an `Init: true` container needs is not on the host. */
export const NO_INIT_BINARY = /container-init binary not found/;

/**
 * PID 1 of a build box on an engine that has no init binary to inject (Podman without catatonit):
 * the image's own Python, reaping every child it inherits and exiting on SIGTERM, as the engine's
 * init would. Build boxes are made FROM the sandbox image, which always has python3; the box's
 * command is what this process waits beside, so it replaces the command (which only waits).
 */
const REAPER_CMD = [
  'python3',
  '-I',
  '-c',
  [
    'import os, signal',
    'signal.signal(signal.SIGTERM, lambda *_: os._exit(0))',
    'signal.signal(signal.SIGCHLD, lambda *_: None)',
    'while True:',
    '    try:',
    '        while os.waitpid(-1, os.WNOHANG)[0] > 0: pass',
    '    except ChildProcessError: pass',
    '    signal.sigtimedwait([signal.SIGCHLD], 5)',
  ].join('\n'),
];

/** `ownInit`: no init injected by the engine; the box's PID 1 reaps (REAPER_CMD). */
export function buildContainerBody(config: BuildContainerConfig, opts: { ownInit?: boolean } = {}) {
  return {
    Image: config.Image,
    Cmd: opts.ownInit ? REAPER_CMD : config.Cmd,
    User: '0:0',
    WorkingDir: '/',
    Labels: config.Labels,
    Tty: false,
    HostConfig: {
      NetworkMode: config.NetworkMode,
      Memory: config.Memory,
      MemorySwap: config.Memory,
      PidsLimit: config.PidsLimit,
      Init: !opts.ownInit,
      LogConfig: { Type: 'none', Config: {} },
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=1024m,mode=1777' },
      Ulimits: CONTAINER_ULIMITS,
      CapDrop: config.CapDrop,
      CapAdd: config.CapAdd,
      SecurityOpt: config.SecurityOpt,
    },
  };
}

/**
 * A build container made with the engine's init; where the engine says it has no init binary
 * (Podman without catatonit), made again with the box's own PID 1, and so from then on for that
 * engine, rather than failing every build the sandboxes could run.
 */
export async function createWithInitFallback(
  create: (ownInit: boolean) => Promise<string>,
  engine: { noInitBinary: boolean },
): Promise<string> {
  if (engine.noInitBinary) return create(true);
  try {
    return await create(false);
  } catch (error) {
    if (!NO_INIT_BINARY.test((error as Error).message)) throw error;
    engine.noInitBinary = true;
    return create(true);
  }
}
