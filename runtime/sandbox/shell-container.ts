// A sandbox for a person (`piper-agent env shell`): the same hardened container as every run (no
// network, no capabilities, a root only root writes, uid 1000, limits, owner labels for the sweep), the
// workspace snapshot unpacked into its tmpfs by the image's own entry point, then left waiting so
// an interactive shell can be exec'd into it. It is removed when the shell ends.
import type { Readable } from 'node:stream';
import type { DockerEngine } from '../engine/docker-engine.js';
import { LABEL, containerConfig } from './hardening.js';
import { currentOwner, formatOwner } from './owner.js';
import { removeOrReport, reportToStderr } from './removal.js';
import { WORKSPACE_ARGV } from './pool.js';
import { resolveLimits, type Limits } from './spec.js';

export async function startShellContainer(
  engine: DockerEngine,
  opts: { image: string; workspace: Readable; limits?: Partial<Limits>; runtime?: string | null },
): Promise<string> {
  const limits = resolveLimits({ memoryMb: 1024, pids: 256, tmpfsMb: 512, timeoutS: 3600, ...opts.limits });
  const config = containerConfig({
    image: opts.image,
    argv: WORKSPACE_ARGV,
    limits,
    runtime: opts.runtime,
    labels: { [LABEL.owner]: formatOwner(currentOwner()), [LABEL.run]: 'env-shell' },
  });
  const id = await engine.createContainer(config);
  try {
    const stream = await engine.attach(id);
    stream.on('data', () => undefined);
    await engine.start(id);
    // The entry point reads one JSON line, then the tar; `sleep` keeps the container up for the shell.
    stream.write(`${JSON.stringify({ argv: ['sleep', String(limits.timeoutS)] })}\n`);
    await new Promise<void>((resolve, reject) => {
      opts.workspace.on('error', reject);
      opts.workspace.on('end', resolve);
      opts.workspace.pipe(stream, { end: false });
    });
    stream.end();
    return id;
  } catch (error) {
    await removeOrReport(engine, id, reportToStderr);
    throw error;
  }
}
