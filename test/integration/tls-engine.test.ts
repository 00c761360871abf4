// A remote engine over TLS, reached the way CI reaches docker-in-docker (DOCKER_HOST=tcp://…,
// DOCKER_TLS_VERIFY=1, DOCKER_CERT_PATH): a second dockerd on 127.0.0.1 with certificates made
// here by openssl, the sandbox image built through it, `execute` and `fix` run on it, a client
// without its certificate turned away with an engine error, and nothing left there afterwards.
// The main engine (/var/run/docker.sock) and its build record are not touched.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { alive, sleep, stopProcess } from '../helpers/process-stop.js';

const DOCKERD = '/usr/sbin/dockerd';
const IMAGE = loadRecipe().ref;

let root = '';
let port = 0;
let dockerd: ChildProcess | undefined;
let api: Docker;
let remote: DockerEngine;
let cliEnv: NodeJS.ProcessEnv = {};

function openssl(cwd: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate for IP 127.0.0.1 and a client certificate, as `docker` expects them. */
function makeCertificates(dir: string): void {
  mkdirSync(join(dir, 'server'));
  mkdirSync(join(dir, 'client'));
  const days = ['-days', '2'];
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    ...days,
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
    '-subj',
    '/CN=piper-test-ca',
  );
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [who, cn] of [
    ['server', '127.0.0.1'],
    ['client', 'piper-test-client'],
  ] as const) {
    openssl(
      dir,
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${who}/key.pem`,
      '-out',
      `${who}.csr`,
      '-subj',
      `/CN=${cn}`,
    );
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      `${who}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      ...days,
      '-out',
      `${who}/cert.pem`,
      '-extfile',
      `${who}.ext`,
    );
    copyFileSync(join(dir, 'ca.pem'), join(dir, who, 'ca.pem'));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
}

function logTail(): string {
  const log = join(root, 'dockerd.log');
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-25).join('\n') : '(no log)';
}

/** dockerd stops its containerd and cleans its state first: it may take a while. */
const stop = (pid: number | undefined) => stopProcess(pid, 30_000);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'piper-tls-engine-'));
  const certs = join(root, 'certs');
  mkdirSync(certs);
  makeCertificates(certs);
  port = await freePort();
  const log = openSync(join(root, 'dockerd.log'), 'a');
  // No --containerd: dockerd starts its own managed containerd under --exec-root, so the main
  // engine's containerd is never shared. No unix socket: -H names the one TCP listener.
  dockerd = spawn(
    DOCKERD,
    [
      '--tlsverify',
      `--tlscacert=${join(certs, 'ca.pem')}`,
      `--tlscert=${join(certs, 'server', 'cert.pem')}`,
      `--tlskey=${join(certs, 'server', 'key.pem')}`,
      `-H=tcp://127.0.0.1:${port}`,
      `--data-root=${join(root, 'data')}`,
      `--exec-root=${join(root, 'exec')}`,
      `--pidfile=${join(root, 'dockerd.pid')}`,
      '--bridge=none',
      '--iptables=false',
      '--ip-masq=false',
    ],
    { stdio: ['ignore', log, log] },
  );
  const client = join(certs, 'client');
  api = new Docker({
    host: '127.0.0.1',
    port,
    protocol: 'https',
    ca: readFileSync(join(client, 'ca.pem')),
    cert: readFileSync(join(client, 'cert.pem')),
    key: readFileSync(join(client, 'key.pem')),
  });
  remote = new DockerEngine(api);
  let lastError: unknown;
  for (let i = 0; i < 120; i++) {
    if (dockerd.exitCode !== null) break;
    try {
      await api.version();
      lastError = undefined;
      break;
    } catch (error) {
      lastError = error;
      await sleep(500);
    }
  }
  if (dockerd.exitCode !== null || lastError !== undefined)
    throw new Error(
      `the second dockerd on 127.0.0.1:${port} did not answer within 60 s ` +
        `(exit ${dockerd.exitCode}, last error: ${String(lastError)}); dockerd.log ends:\n${logTail()}`,
    );
  cliEnv = {
    DOCKER_HOST: `tcp://127.0.0.1:${port}`,
    DOCKER_TLS_VERIFY: '1',
    DOCKER_CERT_PATH: client,
    PIPER_STATE_DIR: join(root, 'state'),
  };
}, 120_000);

afterAll(async () => {
  try {
    if (api && alive(dockerd?.pid)) {
      for (const c of await api.listContainers({ all: true }))
        await api.getContainer(c.Id).remove({ force: true, v: true });
      for (const image of await api.listImages({ all: true }))
        await api.getImage(image.Id).remove({ force: true });
      expect(await api.listContainers({ all: true })).toEqual([]);
      expect(await api.listImages({ all: true })).toEqual([]);
    }
  } finally {
    await stop(dockerd?.pid);
    // A dockerd killed hard leaves its managed containerd and maybe mounts behind.
    const containerdPid = join(root, 'exec', 'containerd', 'containerd.pid');
    if (existsSync(containerdPid))
      await stop(Number(readFileSync(containerdPid, 'utf8').trim()) || undefined);
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1] ?? '')
      .filter((m) => root && m.startsWith(root + '/'))
      .sort((a, b) => b.length - a.length);
    for (const m of mounts) {
      try {
        execFileSync('umount', ['-R', m], { stdio: 'ignore' });
      } catch {
        execFileSync('umount', ['-l', m], { stdio: 'ignore' });
      }
    }
    if (root) rmSync(root, { recursive: true, force: true });
  }
}, 180_000);

describe('a remote engine over TLS (a second dockerd with client certificates)', () => {
  it('builds the sandbox image through the TLS API, leaving the main build record alone', async () => {
    const r = await runCli(['image', 'build'], { env: cliEnv, cwd: root });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const id = await remote.imageId(IMAGE);
    expect(id).not.toBeNull();
    // Recorded in this test's state directory (PIPER_STATE_DIR), not in the main engine's record.
    expect(readFileSync(join(root, 'state', 'images.json'), 'utf8')).toContain(id!);
  }, 600_000);

  it('runs `execute` on it', async () => {
    const cwd = mkdtempSync(join(root, 'execute-'));
    const r = await runCli(['execute', '--code', 'print(6*7)', '--json'], { env: cliEnv, cwd });
    expect(r.code, r.stderr).toBe(0);
    const receipt = JSON.parse(r.stdout) as { stdout: string; exit_code: number; image_digest: string };
    expect(receipt).toMatchObject({ stdout: '42\n', exit_code: 0 });
    // It ran on the image built there (the main engine's would have another id).
    expect(receipt.image_digest).toBe(await remote.imageId(IMAGE));
  });

  it('runs a headless `fix` on it to a verified resolution', async () => {
    const repo = sampleRepo();
    try {
      const r = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'), { env: cliEnv });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'resolved', verified: true, exit_code: 0 });
      expect(readFileSync(join(repo, 'textstats', 'words.py'), 'utf8')).toContain('return ranked[:n]');
    } finally {
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 300_000);

  it('turns away a client without its certificate with an engine error, not a crash', async () => {
    const caOnly = join(root, 'ca-only');
    mkdirSync(caOnly);
    copyFileSync(join(root, 'certs', 'ca.pem'), join(caOnly, 'ca.pem'));
    const missing = await runCli(['execute', '--code', 'print(1)', '--json'], {
      env: { ...cliEnv, DOCKER_CERT_PATH: caOnly },
      cwd: caOnly,
    });
    expect(missing.code, missing.stderr).toBe(5);
    expect(missing.stderr).toContain(`cannot connect to tcp://127.0.0.1:${port}`);
    expect(missing.stderr).toContain('cert.pem');
    expect(missing.stderr).not.toContain('internal error');

    // A certificate the engine's CA did not sign: the TLS handshake is refused.
    const stranger = join(root, 'stranger');
    mkdirSync(stranger);
    copyFileSync(join(root, 'certs', 'ca.pem'), join(stranger, 'ca.pem'));
    openssl(
      stranger,
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-subj',
      '/CN=stranger',
    );
    const wrong = await runCli(['execute', '--code', 'print(1)', '--json'], {
      env: { ...cliEnv, DOCKER_CERT_PATH: stranger },
      cwd: stranger,
    });
    expect(wrong.code, wrong.stderr).not.toBe(0);
    expect(wrong.stderr).toMatch(/bad certificate|certificate/);
    expect(wrong.stderr).not.toContain('internal error');
  });

  it('leaves no container of piper on the engine after the runs', async () => {
    let left = await api.listContainers({ all: true, filters: { label: [LABEL.owner] } });
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await sleep(100);
      left = await api.listContainers({ all: true, filters: { label: [LABEL.owner] } });
    }
    expect(left).toEqual([]);
  });
});
