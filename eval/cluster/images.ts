// Where the nodes find piper's two images (docs/scale.md): the CI image the jobs run and the sandbox
// image their environments are built FROM. With --registry, `ab` copies both to the manager's engine
// when it lacks them, pushes them to the registry from there, and has every node pull the sandbox
// image with a global job (Swarm pulls a job's image; nothing else makes a node pull); the CI image
// each node pulls as its first instance job starts. Without one, the nodes must have both images
// under their local names already (`docker save | docker -H NODE load`); a job on a node without
// them fails with the engine's "No such image", which the report names.
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import type { SwarmClient } from '../../runtime/engine/swarm-client.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { runOnEveryNode } from './global-job.js';
import type { JobImages } from './instance-job.js';

interface ImageRefs {
  ci: string;
  sandbox: string;
}

export async function placeImages(
  local: DockerEngine,
  client: SwarmClient,
  refs: ImageRefs,
  registry: string | null,
  owner: Owner,
  log: (line: string) => void,
): Promise<JobImages> {
  const architecture = (await local.inspectImage(refs.ci))?.architecture ?? '';
  if (registry === null) return { ci: refs.ci, sandbox: null, sandboxOnNodes: refs.sandbox, architecture };
  const pushed: string[] = [];
  for (const ref of [refs.ci, refs.sandbox]) {
    const t0 = performance.now();
    if (await local.copyImageTo(client.engine, ref))
      log(`copied ${ref} to the manager in ${secondsSince(t0)} s`);
    const t1 = performance.now();
    pushed.push(await client.engine.pushImage(ref, registry));
    log(`pushed ${pushed.at(-1)} in ${secondsSince(t1)} s`);
  }
  const t2 = performance.now();
  // The sandbox image's /bin/true: a node pulls an image only to run it.
  await runOnEveryNode(client, owner, 'pull', { image: pushed[1]!, command: ['/bin/true'], socket: false });
  log(`every node pulled ${pushed[1]} in ${secondsSince(t2)} s`);
  return { ci: pushed[0]!, sandbox: pushed[1]!, sandboxOnNodes: pushed[1]!, architecture };
}

const secondsSince = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
