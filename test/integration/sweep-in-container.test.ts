// A start-up sweep that runs inside a container beside the engine (a CI job's container on the
// host's network, which has the host's hostname) never removes a container of a live process on
// the host: from there a host pid cannot be judged, as /proc shows only the container's own
// processes. The sweep runs for real, from the compiled code (make build), in a container of the
// sandbox image with this machine's node; the host's own sweep still removes a dead owner's.
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { packageRoot } from '../../runtime/package-root.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { removeOrphans } from '../../runtime/sandbox/orphans.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { engine } from '../helpers/sandbox.js';

const image = loadRecipe().ref;
const made: string[] = [];
afterAll(() => {
  for (const id of made) execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
});

/** A waiting container of the sandbox image carrying `owner` as its owner label. */
function ownedContainer(owner: string): string {
  const id = execFileSync(
    'docker',
    ['run', '-d', '--network', 'none', '--label', `${LABEL.owner}=${owner}`, image, 'sleep', '300'],
    { encoding: 'utf8' },
  ).trim();
  made.push(id);
  return id;
}

/** removeOrphans run inside a container on the host's network (so with the host's hostname). */
function sweepInContainer(): string[] {
  const root = packageRoot();
  const modules = realpathSync(join(root, 'node_modules'));
  const script = `
    const { DockerEngine } = await import('${root}/dist/runtime/engine/docker-engine.js');
    const { removeOrphans } = await import('${root}/dist/runtime/sandbox/orphans.js');
    const { ownContainerId } = await import('${root}/dist/runtime/sandbox/owner.js');
    if (!ownContainerId()) throw new Error('not seen as inside a container');
    const removed = await removeOrphans(new DockerEngine(), () => undefined);
    console.log(JSON.stringify(removed.map((r) => r.containerId)));`;
  const out = execFileSync(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'host',
      '--user',
      '0',
      '-v',
      '/var/run/docker.sock:/var/run/docker.sock',
      '-v',
      `${process.execPath}:/usr/local/bin/node:ro`,
      '-v',
      `${root}:${root}:ro`,
      '-v',
      `${dirname(modules)}:${dirname(modules)}:ro`,
      '--entrypoint',
      '/usr/local/bin/node',
      image,
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('a start-up sweep inside a container with the host hostname', () => {
  it("leaves a live host process's container alone, and a dead one's to the host's sweep", async () => {
    const live = ownedContainer(formatOwner(currentOwner()));
    // A host pid that is no process now: its owner is dead, as the host's sweep can tell.
    const dead = ownedContainer(`${currentOwner().host}:4194000:1`);
    const removedInside = sweepInContainer();
    expect(removedInside).not.toContain(live);
    expect(removedInside).not.toContain(dead);
    expect((await engine.inspect(live)).running).toBe(true);
    const removedOnHost = (await removeOrphans(engine, () => undefined)).map((r) => r.containerId);
    expect(removedOnHost).toContain(dead);
    expect(removedOnHost).not.toContain(live);
    expect((await engine.inspect(live)).running).toBe(true);
  }, 120_000);
});
