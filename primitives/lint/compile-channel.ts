// Where the compile server runs: in a long-lived sandbox container (the sandbox's own python3, so
// syntax is judged as the code will run) or, where no engine or image is there, in a host python3
// of the same version. Both speak the same JSON lines over stdin/stdout; a channel is one server.
import { spawn, spawnSync } from 'node:child_process';
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { openServiceContainer } from '../../runtime/sandbox/service-container.js';

export interface ChannelHandlers {
  onStdout: (text: string) => void;
  /** Once: the server is gone. `permanent` when retrying cannot help (the interpreter does not exist). */
  onClose: (reason: string, permanent?: boolean) => void;
}

export interface CompileChannel {
  /** Where the server runs, for messages: `python3 in piper-sandbox-python:…` or the host path. */
  where: string;
  send(line: string): void;
  /** Lets the server exit on end of input; resolves once its container, if it has one, is removed. */
  end(): Promise<void>;
  /** For a server that hangs or misbehaves; resolves as `end` does. */
  kill(): Promise<void>;
}

/** -I: ignore PYTHON* variables and the user's site-packages; -S: no site import (faster start). */
const PYTHON_FLAGS = ['-I', '-S', '-c'];

export function openHostChannel(python: string, script: string, handlers: ChannelHandlers): CompileChannel {
  const child = spawn(python, [...PYTHON_FLAGS, script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderrTail = '';
  let closed = false;
  const close = (reason: string, permanent = false) => {
    if (closed) return;
    closed = true;
    handlers.onClose(reason, permanent);
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', handlers.onStdout);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderrTail = (stderrTail + chunk).slice(-2000)));
  child.stdin.on('error', () => {}); // EPIPE when the child died: reported by 'close' below
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      close(`${python} not found; compile check skipped, ruff's parser only`, true);
    else close(`${python} could not be started: ${error.message}`);
  });
  // 'close', not 'exit': only after the pipes are drained is the dying interpreter's last stderr
  // line in stderrTail ('exit' can come first, and the reason would lose it).
  child.on('close', (code, signal) => {
    const why = stderrTail.trim().split('\n').slice(-1)[0] ?? '';
    close(`${python} exited (${signal ?? `code ${code}`})${why ? `: ${why}` : ''}`);
  });
  // An idle interpreter must not keep Node running: unref the process and its pipes.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void }).unref?.();
  }
  return {
    where: python,
    send: (line) => child.stdin.write(line),
    // A host interpreter leaves nothing to remove: it exits on end of input, or at once when killed.
    end: async () => {
      child.stdin.end();
    },
    kill: async () => {
      child.stdin.end();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Rejects with the reason when the engine or the image is not there. */
export async function openSandboxChannel(
  engine: DockerEngine,
  image: string,
  script: string,
  handlers: ChannelHandlers,
  /** The sandbox runtime (HostConfig.Runtime); null: the engine's default. */
  runtime: string | null = null,
): Promise<CompileChannel> {
  let stderrTail = '';
  const where = `python3 in ${image}`;
  let service: Awaited<ReturnType<typeof openServiceContainer>>;
  try {
    service = await openServiceContainer(
      engine,
      { image, argv: ['python3', ...PYTHON_FLAGS, script], name: 'lint-compile', runtime },
      {
        onStdout: (chunk) => handlers.onStdout(chunk.toString('utf8')),
        onStderr: (chunk) => (stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000)),
        onClose: () => {
          const why = stderrTail.trim().split('\n').slice(-1)[0] ?? '';
          handlers.onClose(`${where} exited${why ? `: ${why}` : ''}`);
        },
      },
    );
  } catch (error) {
    const detail = isRuntimeError(error) ? error.message : String(error);
    throw new Error(`the sandbox's python3 (${image}) could not be started: ${detail}`, { cause: error });
  }
  return {
    where,
    send: (line) => service.write(line),
    end: () => service.close(),
    kill: () => service.close(),
  };
}

const hostVersions = new Map<string, string | null>();

/** `3.11` for the host's python3, or null when it does not run; asked once per process. */
export function hostPythonVersion(python = 'python3'): string | null {
  if (!hostVersions.has(python)) {
    const probe = spawnSync(python, ['-I', '-S', '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
      encoding: 'utf8',
      timeout: 5000,
    });
    hostVersions.set(python, probe.status === 0 ? probe.stdout.trim() : null);
  }
  return hostVersions.get(python) ?? null;
}
