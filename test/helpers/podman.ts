// A Podman service for a test: `podman system service` on a socket of its own, rootful (as root)
// or rootless (as an unprivileged user with subordinate ids), with its own storage so the host's
// and other tests' images are never touched. stop() empties the engine, kills what was started
// (the service and, rootless, the user-namespace pause process) by pid, removes the storage, and
// removes the rootless user again when it was made for this service.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { PODMAN, ensurePodman, ensureRootlessUser } from '../../runtime/engine/podman-bootstrap.js';
import { alive, sleep, stopProcess } from './process-stop.js';

export const ROOTLESS_USER = 'piper-podman';
/** Where Debian's Podman looks for catatonit (a link to /usr/bin/catatonit). */
const PODMAN_HELPERS = '/usr/libexec/podman';

export interface PodmanService {
  mode: 'rootful' | 'rootless';
  socket: string;
  /** DOCKER_HOST and a state directory of its own, for the CLI. */
  env: NodeJS.ProcessEnv;
  api: Docker;
  engine: DockerEngine;
  root: string;
  stop(): Promise<void>;
}

/** Podman's service exits within seconds of SIGTERM once its containers are gone. */
const stopPid = (pid: number | undefined) => stopProcess(pid, 20_000);

/**
 * `withoutInit` (rootful): the service runs in a mount namespace of its own where Podman's helper
 * directory is an empty tmpfs, so it finds no init binary (catatonit), as on a host that lacks it;
 * the host's own files are untouched.
 */
export async function startPodman(
  mode: 'rootful' | 'rootless',
  opts: { withoutInit?: boolean } = {},
): Promise<PodmanService> {
  await ensurePodman((line) => process.stderr.write(`${line}\n`));
  const root = mkdtempSync(join(tmpdir(), `piper-podman-${mode}-`));
  const socket = join(root, 'podman.sock');
  const storage = ['--root', join(root, 'storage'), '--runroot', join(root, 'run')];
  const serve = [
    ...storage,
    '--storage-driver',
    'overlay',
    'system',
    'service',
    '--time=0',
    `unix://${socket}`,
  ];
  const log = openSync(join(root, 'podman.log'), 'a');
  // The service runs in its own directory: Podman 4's conmon drops an `oom` marker file into the
  // working directory it inherits whenever a container is killed for memory.
  let child: ChildProcess;
  let xdg = '';
  let madeUser = false;
  if (mode === 'rootful' && opts.withoutInit) {
    const hide = `mount -t tmpfs -o size=1m none ${PODMAN_HELPERS} && exec "$@"`;
    child = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', hide, 'sh', PODMAN, ...serve], {
      stdio: ['ignore', log, log],
      cwd: root,
    });
  } else if (mode === 'rootful') {
    child = spawn(PODMAN, serve, { stdio: ['ignore', log, log], cwd: root });
  } else {
    const user = ensureRootlessUser(ROOTLESS_USER);
    madeUser = user.created;
    xdg = join(root, 'xdg');
    mkdirSync(xdg, { mode: 0o700 });
    for (const dir of [root, xdg]) chownSync(dir, user.uid, user.gid);
    // setpriv, not spawn's uid/gid: those keep root's supplementary groups.
    child = spawn(
      'setpriv',
      ['--reuid', String(user.uid), '--regid', String(user.gid), '--init-groups', PODMAN, ...serve],
      {
        stdio: ['ignore', log, log],
        cwd: root,
        env: { HOME: user.home, XDG_RUNTIME_DIR: xdg, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      },
    );
  }
  const api = new Docker({ socketPath: socket });
  let lastError: unknown = new Error('not started');
  for (let i = 0; i < 240 && child.exitCode === null; i++) {
    try {
      await api.version();
      lastError = undefined;
      break;
    } catch (error) {
      lastError = error;
      await sleep(250);
    }
  }
  const logText = () => readFileSync(join(root, 'podman.log'), 'utf8').split('\n').slice(-20).join('\n');
  if (lastError !== undefined)
    throw new Error(`podman (${mode}) did not answer at ${socket}: ${String(lastError)}\n${logText()}`);

  const stop = async () => {
    try {
      if (alive(child.pid)) {
        for (const c of await api.listContainers({ all: true }))
          await api.getContainer(c.Id).remove({ force: true, v: true });
        for (const image of await api.listImages({ all: true }))
          await api.getImage(image.Id).remove({ force: true });
      }
    } finally {
      await stopPid(child.pid);
      // Rootless Podman re-executes itself inside its user namespace: that process has another
      // pid, found by the storage directory of this service in its command line.
      // Each exec session keeps a conmon for minutes after it ends (its exit delay), and conmon
      // outlasts SIGTERM: stopped together, or a build's dozens of execs take minutes one by one.
      await Promise.all(pidsMentioning(root).map(stopPid));
      // Rootless Podman keeps its user namespace open with a pause process of its own.
      const pause = join(xdg, 'libpod', 'tmp', 'pause.pid');
      if (xdg && existsSync(pause)) await stopPid(Number(readFileSync(pause, 'utf8').trim()) || undefined);
      unmountUnder(root);
      rmSync(root, { recursive: true, force: true });
      if (madeUser) await removeUser(ROOTLESS_USER);
    }
  };
  return {
    mode,
    socket,
    env: { DOCKER_HOST: `unix://${socket}`, PIPER_STATE_DIR: join(root, 'state') },
    api,
    engine: new DockerEngine(api),
    root,
    stop,
  };
}

/**
 * The user made for this service, with its home and subordinate id ranges (userdel removes both).
 * Any process still running as that user was started by this service: stopped first, by pid.
 */
async function removeUser(name: string): Promise<void> {
  const uid = execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim();
  for (let i = 0; i < 20; i++) {
    const left = pidsOfUser(uid);
    if (left.length === 0) break;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    await sleep(250);
  }
  execFileSync('userdel', ['--remove', name], { stdio: 'ignore' });
}

function pidsOfUser(uid: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Processes whose command line names `path` (this service's own temporary directory). */
function pidsMentioning(path: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(path)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function unmountUnder(root: string): void {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .filter((m) => m.startsWith(root + '/'))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) {
    try {
      execFileSync('umount', ['-R', m], { stdio: 'ignore' });
    } catch {
      execFileSync('umount', ['-l', m], { stdio: 'ignore' });
    }
  }
}
