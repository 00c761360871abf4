// One container on every node, once: a global service whose tasks are not restarted. Nothing else
// makes every node do something: `ab` uses it to have each node pull the sandbox image from the
// registry, and to sweep each node at the end. Not `Mode: GlobalJob`: Docker 20.10 never removes a
// removed job service's containers (moby/moby#44312), a global service's it does. The service is
// removed once a task has ended on every Ready node, whatever they did.
import { TASK_END_STATES, type SwarmClient, type SwarmTask } from '../../runtime/engine/swarm-client.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { jobLabels } from './sweep.js';

interface GlobalSpec {
  image: string;
  command: string[];
  socket: boolean;
  env?: string[];
}

export async function runOnEveryNode(
  client: SwarmClient,
  owner: Owner,
  what: string,
  spec: GlobalSpec,
): Promise<void> {
  const { tasks } = await runOnEveryNodeRead(client, owner, what, spec);
  const bad = tasks.filter((t) => t.state !== 'complete');
  if (bad.length > 0)
    throw new Error(`${what} failed on a node: ${bad.map((t) => `${t.state} ${t.message}`).join('; ')}`);
}

/** The same, returning each node's task as it ended and what the tasks printed on stdout. */
export async function runOnEveryNodeRead(
  client: SwarmClient,
  owner: Owner,
  what: string,
  spec: GlobalSpec,
): Promise<{ tasks: SwarmTask[]; stdout: string }> {
  const nodes = await client.readyNodes();
  const labels = jobLabels(owner, { 'piper.ab.global': what });
  const id = await client.createService({
    Name: `piper-ab-${what}-${process.pid}-${Date.now()}`,
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: spec.image,
        Command: spec.command,
        Labels: labels,
        Env: spec.env ?? [],
        Mounts: spec.socket
          ? [{ Type: 'bind', Source: '/var/run/docker.sock', Target: '/var/run/docker.sock' }]
          : [],
      },
      RestartPolicy: { Condition: 'none', MaxAttempts: 0 },
    },
    Mode: { Global: {} },
  });
  try {
    for (let waited = 0; ; waited++) {
      const tasks = await client.tasks(id);
      const ended = new Set(tasks.filter((t) => TASK_END_STATES.has(t.state)).map((t) => t.nodeId));
      if (nodes.every((n) => ended.has(n))) return { tasks, stdout: (await client.serviceLogs(id)).stdout };
      if (waited > 1200) throw new Error(`${what} did not end on every node in 20 minutes`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    await client.removeService(id);
    // Its containers go as the nodes drop its tasks: waited for, so nothing is left when `ab` exits.
    for (let i = 0; i < 60 && (await client.tasksLeft(id)).length > 0; i++)
      await new Promise((r) => setTimeout(r, 500));
  }
}
