// A real two-node Docker Swarm on one machine, for tests (docs/scale.md): a private network namespace
// (lo up, 127.0.0.2 beside 127.0.0.1: the Swarm ports of two nodes, and the VXLAN port, must not meet
// the main engine's), two dockerds in it, each in its own mount namespace too, so each sees its own
// socket at /var/run/docker.sock, the path a job mounts on whatever node it lands; the first
// `swarm init`-ed on 127.0.0.1, the second joined as a worker from 127.0.0.2; and Debian's
// docker-registry on 127.0.0.1:5000 inside the namespace. Never the main engine's socket.
// Teardown stops every process by its pid, removes the state directory and deletes the namespace;
// bringing a swarm up first tears down whatever a run that died half-way left under the same name.
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../runtime/package-root.js';
import { alive, sleep, stopProcess } from './process-stop.js';

const run = promisify(execFile);

export const REGISTRY_PORT = 5000;

export interface SwarmNode {
  /** 'manager' or 'worker'. */
  role: string;
  /** The node's engine, reachable from the host: unix://ROOT/NAME/docker.sock. */
  host: string;
  socket: string;
}

export interface TestSwarm {
  name: string;
  root: string;
  manager: SwarmNode;
  worker: SwarmNode;
  /** HOST:PORT of the registry, as the nodes reach it. */
  registry: string;
  /** Seconds from nothing to both nodes Ready and the registry answering. */
  upSeconds: number;
}

const rootOf = (name: string) => join('/tmp', name);
const pidFiles = (root: string) =>
  ['manager/pid', 'worker/pid', 'registry/pid', 'model/pid'].map((p) => join(root, p));

/** `docker` against one node's engine (the CLI is the tests' client for the node daemons). */
export async function nodeDocker(node: SwarmNode, ...args: string[]): Promise<string> {
  const { stdout } = await run('docker', ['-H', node.host, ...args], { maxBuffer: 64 << 20 });
  return stdout.trim();
}

/** Removes everything a swarm of this name left: processes (by pid file), state, the namespace. */
export async function tearDownSwarm(name: string): Promise<void> {
  const root = rootOf(name);
  const stops = pidFiles(root).map(async (file) => {
    const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
    // Only a process still running our command line: a recycled pid is left alone.
    if (pid > 0 && alive(pid) && ownedBy(pid, root)) await stopProcess(pid, 15_000);
  });
  await Promise.all(stops);
  // The data roots hold every image layer unpacked: `rm -rf` as a child, not blocking the event loop.
  await run('rm', ['-rf', '--one-file-system', root]);
  await run('ip', ['netns', 'delete', name]).catch(() => undefined);
}

function ownedBy(pid: number, root: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root);
  } catch {
    return false;
  }
}

export async function bringUpSwarm(name = `piper-swarm-${process.pid}`): Promise<TestSwarm> {
  const t0 = performance.now();
  await tearDownSwarm(name);
  const root = rootOf(name);
  await run('ip', ['netns', 'add', name]);
  await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  await run('ip', ['-n', name, 'addr', 'add', '127.0.0.2/8', 'dev', 'lo']);
  const manager = startDockerd(name, root, 'manager');
  const worker = startDockerd(name, root, 'worker');
  const registry = startRegistry(name, root);
  await Promise.all([waitForEngine(manager), waitForEngine(worker)]);
  await nodeDocker(
    manager,
    'swarm',
    'init',
    '--advertise-addr',
    '127.0.0.1',
    '--listen-addr',
    '127.0.0.1:2377',
  );
  const token = await nodeDocker(manager, 'swarm', 'join-token', '-q', 'worker');
  await nodeDocker(
    worker,
    'swarm',
    'join',
    '--token',
    token,
    '--advertise-addr',
    '127.0.0.2',
    '--listen-addr',
    '127.0.0.2:2377',
    '127.0.0.1:2377',
  );
  await waitForNodesReady(manager, 2);
  await waitForPort(name, registry, 'the registry');
  return { name, root, manager, worker, registry, upSeconds: (performance.now() - t0) / 1000 };
}

/**
 * One dockerd in the namespace and in a mount namespace of its own, with a tmpfs on /run there: its
 * /var/run/docker.sock is its own (what a job mounts), and a second socket under ROOT is the host's
 * way in. No bridge, no iptables, no-new-privileges for every container: what a Swarm service cannot
 * ask for itself on API 1.41 (docs/scale.md).
 */
function startDockerd(name: string, root: string, role: string): SwarmNode {
  const dir = join(root, role);
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'docker.sock');
  const daemon = [
    'dockerd',
    `--data-root=${join(dir, 'data')}`,
    `--exec-root=${join(dir, 'exec')}`,
    `--pidfile=${join(dir, 'pid')}`,
    `-H=unix://${socket}`,
    '-H=unix:///var/run/docker.sock',
    '--bridge=none',
    '--iptables=false',
    '--ip6tables=false',
    '--ip-forward=false',
    '--ip-masq=false',
    '--no-new-privileges',
  ].join(' ');
  const script = `mount -t tmpfs -o size=16m tmpfs /run && exec ${daemon}`;
  spawnLogged(
    [
      'nsenter',
      `--net=/run/netns/${name}`,
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      script,
    ],
    join(dir, 'log'),
  );
  return { role, host: `unix://${socket}`, socket };
}

function startRegistry(name: string, root: string): string {
  const dir = join(root, 'registry');
  mkdirSync(dir, { recursive: true });
  const address = `127.0.0.1:${REGISTRY_PORT}`;
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'data')}\n  delete:\n    enabled: true\nhttp:\n  addr: ${address}\n`,
  );
  const child = spawnLogged(
    ['nsenter', `--net=/run/netns/${name}`, 'docker-registry', 'serve', config],
    join(dir, 'log'),
  );
  writeFileSync(join(dir, 'pid'), String(child.pid));
  return address;
}

/** The fake model server's port inside the namespace. */
const MODEL_PORT = 8571;

/**
 * The fake OpenAI-compatible server (netns-model-server.mjs) on the manager's loopback address
 * inside the namespace: jobs reach it through their node's network, on either node. Requests
 * without `key` get 401; those naming `failPhrase` get 400. Stopped by the swarm's teardown.
 */
export async function startModelServer(
  swarm: TestSwarm,
  key: string,
  failPhrase: string,
): Promise<{ baseUrl: string; log: string }> {
  const dir = join(swarm.root, 'model');
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'requests.jsonl');
  writeFileSync(log, '');
  const script = join(packageRoot(), 'test', 'helpers', 'netns-model-server.mjs');
  const child = spawnLogged(
    [
      'nsenter',
      `--net=/run/netns/${swarm.name}`,
      process.execPath,
      script,
      String(MODEL_PORT),
      key,
      failPhrase,
      log,
    ],
    join(dir, 'log'),
  );
  writeFileSync(join(dir, 'pid'), String(child.pid));
  await waitForPort(swarm.name, `127.0.0.1:${MODEL_PORT}`, 'the fake model server');
  return { baseUrl: `http://127.0.0.1:${MODEL_PORT}/v1`, log };
}

function spawnLogged(argv: string[], log: string) {
  const out = openSync(log, 'a');
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', out, out], detached: true });
  child.unref();
  closeSync(out);
  return child;
}

async function waitForEngine(node: SwarmNode): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (await nodeDocker(node, 'version', '--format', '{{.Server.Version}}').catch(() => '')) return;
    await sleep(250);
  }
  throw new Error(`the ${node.role} dockerd did not answer on ${node.host} in 60 s`);
}

async function waitForNodesReady(manager: SwarmNode, count: number): Promise<void> {
  for (let i = 0; i < 240; i++) {
    const states = (await nodeDocker(manager, 'node', 'ls', '--format', '{{.Status}}').catch(() => '')).split(
      '\n',
    );
    if (states.filter((s) => s === 'Ready').length >= count) return;
    await sleep(250);
  }
  throw new Error(`the swarm did not reach ${count} Ready nodes in 60 s`);
}

/** Something listens on `address` inside the namespace (a connection from there succeeds). */
async function waitForPort(name: string, address: string, what: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const ok = await run('nsenter', [
      `--net=/run/netns/${name}`,
      'bash',
      '-c',
      `exec 3<>/dev/tcp/${address.replace(':', '/')}`,
    ])
      .then(() => true)
      .catch(() => false);
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${what} did not listen on ${address} in 30 s`);
}
