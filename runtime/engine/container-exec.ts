// Running a command in a container that already runs (POST /containers/{id}/exec): a non-Tty exec
// whose output is demultiplexed to the caller and whose exit code is read back, or an interactive
// one with a terminal (env shell). Failures leave as engine_error / engine_unreachable.
import type Docker from 'dockerode';
import type { Duplex, Readable } from 'node:stream';
import { engineFailure } from './engine-failure.js';
import { drainExec } from './exec-stream.js';

export interface ExecOptions {
  cmd: string[];
  env?: string[];
  user?: string;
  workdir?: string;
  stdin?: Readable;
}

export interface InteractiveExecOptions {
  cmd: string[];
  env?: string[];
  workdir?: string;
}

export interface InteractiveExec {
  stream: Duplex;
  resize: (rows: number, cols: number) => Promise<void>;
  exitCode: () => Promise<number>;
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw engineFailure(what, error);
  }
}

export async function execInContainer(
  container: Docker.Container,
  opts: ExecOptions,
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
): Promise<number> {
  const exec = await call('exec', () =>
    container.exec({
      Cmd: opts.cmd,
      Env: opts.env,
      User: opts.user,
      WorkingDir: opts.workdir,
      AttachStdin: opts.stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    }),
  );
  const stream = (await call('exec start', () =>
    exec.start({ hijack: true, stdin: opts.stdin !== undefined }),
  )) as unknown as Duplex;
  await drainExec(stream, opts.stdin, onOutput);
  const info = await call('exec inspect', () => exec.inspect());
  return info.ExitCode ?? -1;
}

export async function execWithTerminal(
  container: Docker.Container,
  opts: InteractiveExecOptions,
): Promise<InteractiveExec> {
  const exec = await call('exec', () =>
    container.exec({
      Cmd: opts.cmd,
      Env: opts.env,
      WorkingDir: opts.workdir,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
    }),
  );
  const stream = (await call('exec start', () =>
    exec.start({ hijack: true, stdin: true, Tty: true }),
  )) as unknown as Duplex;
  return {
    stream,
    resize: async (h, w) => {
      await exec.resize({ h, w }).catch(() => undefined);
    },
    exitCode: async () => (await exec.inspect()).ExitCode ?? -1,
  };
}
