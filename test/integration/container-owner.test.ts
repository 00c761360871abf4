// piper-agent running inside a container (the CI image) beside the engine: its sandboxes are
// siblings whose owner pid means nothing on the host. When that container is killed outright, the
// host's next start finds the sandboxes by the owner-container label and removes them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureCiImage } from '../../runtime/images/ci-image.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { runCli } from '../helpers/cli.js';
import { engine } from '../helpers/sandbox.js';

describe('sandboxes of a piper-agent that ran in a container', () => {
  it('are removed by the next start on the host once that container is gone', async () => {
    const image = await ensureCiImage(engine, { log: () => undefined });
    const owner = execFileSync(
      'docker',
      [
        'run',
        '-d',
        '-v',
        '/var/run/docker.sock:/var/run/docker.sock',
        image.ref,
        'execute',
        '--code',
        'import time\ntime.sleep(120)',
        '--timeout',
        '150',
      ],
      { encoding: 'utf8' },
    ).trim();
    let sandboxId = '';
    for (let i = 0; i < 300 && !sandboxId; i++) {
      const found = await engine.listContainers([`${LABEL.ownerContainer}=${owner}`]);
      // A one-shot execute's one container (prestarted, so pool-labelled) serves the call.
      sandboxId = found.find((c) => c.state === 'running')?.id ?? '';
      if (!sandboxId) await new Promise((r) => setTimeout(r, 100));
    }
    expect(sandboxId, 'the sandbox started by the containerised piper-agent').not.toBe('');
    execFileSync('docker', ['rm', '-f', owner]); // SIGKILL: piper-agent cleans nothing up
    expect((await engine.listContainers([`${LABEL.ownerContainer}=${owner}`])).map((c) => c.id)).toContain(
      sandboxId,
    );

    const dir = mkdtempSync(join(tmpdir(), 'piper-owner-'));
    const next = await runCli([
      'execute',
      '--ledger',
      join(dir, 'ledger.db'),
      '--repo',
      dir,
      '--code',
      'print(1)',
    ]);
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/start-up sweep: removed [1-9]\d* orphan container\(s\)/);
    expect(await engine.listContainers([`${LABEL.ownerContainer}=${owner}`])).toEqual([]);
  }, 240_000);
});
