// Finding a Docker engine, and starting one where none answers (docs/sandbox.md).
// Idempotent: an engine that answers is used as it is; a dockerd we started earlier is found by
// its pidfile and waited for; only as root, and only for the local socket, do we install Debian's
// docker.io and start `dockerd --bridge=none --iptables=false` (sandboxes have no network anyway).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { RuntimeError, isRuntimeError } from '../errors.js';
import { aptInstall, isRoot } from '../host/apt.js';
import { DockerEngine, type EngineInfo } from './docker-engine.js';

const DOCKERD_PIDFILE = '/var/run/piper-agent/dockerd.pid';
const DOCKERD_LOG = '/var/log/piper-agent/dockerd.log';
const DOCKERD = '/usr/sbin/dockerd';

export interface EngineUp {
  engine: DockerEngine;
  info: EngineInfo;
  started: boolean;
}

export async function probeEngine(engine = new DockerEngine()): Promise<EngineInfo | null> {
  try {
    return await engine.info();
  } catch (error) {
    if (isRuntimeError(error, 'engine_unreachable')) return null;
    throw error;
  }
}

/**
 * An engine that answers, or a RuntimeError('engine_unreachable') saying how to get one. What it
 * is (its version, Docker or Podman, rootless or not) is asked at once but not awaited: the engine
 * spends some 60 ms answering /version and /info, time in which a run opens its ledger and sweeps
 * orphans; the sandbox's first check awaits the answer (engine.info(), engine.identity(): asked
 * once per engine in this process). A failed answer is not kept: whoever needs it asks again.
 */
export async function connectEngine(): Promise<{ engine: DockerEngine }> {
  const engine = new DockerEngine();
  // Asked beside the ping, not after it: a one-shot command's first container waits for the
  // answer (the hardening check), and /info is the slowest of the three.
  engine.identity().catch(() => undefined);
  await engine.ping();
  return { engine };
}

export async function ensureEngine(log: (line: string) => void, timeoutMs = 60_000): Promise<EngineUp> {
  const engine = new DockerEngine();
  const existing = await probeEngine(engine);
  if (existing) return { engine, info: existing, started: false };

  if (process.env.DOCKER_HOST) {
    throw new RuntimeError(
      'engine_unreachable',
      `DOCKER_HOST=${process.env.DOCKER_HOST} does not answer`,
      'start the engine there, or unset DOCKER_HOST to use (and, as root, start) the local one',
    );
  }
  if (!isRoot()) {
    throw new RuntimeError(
      'engine_unreachable',
      'no Docker engine answers at /var/run/docker.sock, and starting one needs root',
      'start one: sudo dockerd --bridge=none --iptables=false & (or run `sudo piper-agent engine up`)',
    );
  }

  if (!alivePid(readPid())) {
    if (!existsSync(DOCKERD)) await aptInstall(['docker.io'], log);
    startDockerd(log);
  } else {
    log(`dockerd (pid ${readPid()}) is starting; waiting for it`);
  }
  const info = await waitForEngine(engine, timeoutMs);
  log(`engine ready: Docker ${info.version}, API ${info.apiVersion}`);
  return { engine, info, started: true };
}

function startDockerd(log: (line: string) => void): void {
  mkdirSync('/var/run/piper-agent', { recursive: true });
  mkdirSync('/var/log/piper-agent', { recursive: true });
  const out = openSync(DOCKERD_LOG, 'a');
  const args = ['--bridge=none', '--iptables=false', `--pidfile=${DOCKERD_PIDFILE}`];
  log(`starting dockerd ${args.join(' ')} (log: ${DOCKERD_LOG})`);
  const child = spawn(DOCKERD, args, { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  closeSync(out);
}

async function waitForEngine(engine: DockerEngine, timeoutMs: number): Promise<EngineInfo> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = await probeEngine(engine);
    if (info) return info;
    await new Promise((r) => setTimeout(r, 250));
  }
  let tail = '';
  try {
    tail = readFileSync(DOCKERD_LOG, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    // no log to show
  }
  throw new RuntimeError(
    'engine_unreachable',
    `dockerd did not answer within ${timeoutMs / 1000} s${tail ? `; the end of ${DOCKERD_LOG}:\n${tail}` : ''}`,
    `look at ${DOCKERD_LOG}`,
  );
}

function readPid(): number | null {
  try {
    const pid = Number(readFileSync(DOCKERD_PIDFILE, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alivePid(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
