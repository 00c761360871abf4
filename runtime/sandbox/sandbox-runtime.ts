// Which OCI runtime sandbox containers run under. By default the engine's own (runc): a container
// shares the host's kernel, so a kernel exploit escapes it. gVisor's `runsc` puts a user-space
// kernel in between; where the engine offers it, PIPER_SANDBOX_RUNTIME=runsc (or the config key
// `sandboxRuntime`) asks for it. A runtime asked for but not offered is refused before any
// container exists, naming what the engine has: running under a weaker runtime than asked is
// never a silent fallback.
import type { DockerEngine, EngineRuntimes } from '../engine/docker-engine.js';
import { RuntimeError } from '../errors.js';

/** The environment variable that names the sandbox runtime. */
export const SANDBOX_RUNTIME_ENV = 'PIPER_SANDBOX_RUNTIME';

/** The runtime sandboxes use: the one asked for, if offered (else a RuntimeError), or the engine's default. */
export function chooseRuntime(wanted: string | null | undefined, offered: EngineRuntimes): string {
  if (!wanted) return offered.default;
  if (offered.names.includes(wanted)) return wanted;
  throw new RuntimeError(
    'runtime_unavailable',
    `the sandbox runtime ${wanted} is not offered by the engine (it offers: ${offered.names.join(', ') || 'none'}; default ${offered.default})`,
    wanted === 'runsc'
      ? 'install gVisor and register it with the engine (dockerd --add-runtime runsc=/usr/local/bin/runsc, or "runtimes" in daemon.json), or unset PIPER_SANDBOX_RUNTIME / sandboxRuntime'
      : `register ${wanted} with the engine (dockerd --add-runtime), or unset PIPER_SANDBOX_RUNTIME / sandboxRuntime`,
  );
}

/**
 * Asks the engine for its runtimes when one is named and checks it is there. Returns the name to
 * set as HostConfig.Runtime, or null when none was named (the engine's default, set by nobody).
 */
export async function resolveSandboxRuntime(
  engine: DockerEngine,
  wanted: string | null | undefined,
): Promise<string | null> {
  if (!wanted) return null;
  return chooseRuntime(wanted, await engine.runtimes());
}
