// `piper-agent engine up|status`: find the Docker engine, and (as root) install and start one.
import { ensureEngine, probeEngine } from '../../runtime/engine/bootstrap.js';
import { DockerEngine, engineEndpoint } from '../../runtime/engine/docker-engine.js';
import { describeEngine } from '../../runtime/engine/engine-identity.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';

export const ENGINE_HELP = `Usage: piper-agent engine up | status

  up       use the engine at DOCKER_HOST or the local socket; where none answers and we are root,
           install Debian's docker.io and start dockerd --bridge=none --iptables=false in the
           background (pidfile /var/run/piper-agent/dockerd.pid, log /var/log/piper-agent/dockerd.log),
           then wait until it answers. Safe to run again.
  status   say whether an engine answers (exit 0: which one, Docker or Podman, rootful or
           rootless) or not (exit 5). Podman answers through its Docker-compatible API:
           DOCKER_HOST=unix:///run/podman/podman.sock (see docs/sandbox.md, "Engines: Docker and Podman").`;

export async function engineCommand(argv: string[]): Promise<number> {
  const [sub] = argv;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (sub === 'up') {
    const up = await ensureEngine(log);
    process.stdout.write(
      `engine ${up.started ? 'started' : 'ready'}: Docker ${up.info.version}, API ${up.info.apiVersion} at ${up.info.endpoint}\n`,
    );
    return EXIT.ok;
  }
  if (sub === 'status') {
    const engine = new DockerEngine();
    const info = await probeEngine(engine);
    if (!info) {
      process.stdout.write(`no engine answers at ${engineEndpoint()}\n`);
      return EXIT.noEngine;
    }
    process.stdout.write(`${describeEngine(await engine.identity())}\n`);
    return EXIT.ok;
  }
  throw new UsageError(sub ? `unknown engine command '${sub}'` : 'engine needs a command: up or status');
}
