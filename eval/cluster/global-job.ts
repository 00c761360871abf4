// One container on every node, once: a Swarm global job. Nothing else makes every node do something:
// `ab` uses it to have each node pull the sandbox image from the registry, and to sweep what a killed
// job's sandboxes left on its node. The service is removed when its tasks have ended, whatever they did.
import { TASK_END_STATES, type SwarmClient } from '../../runtime/engine/swarm-client.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { jobLabels } from './sweep.js';

export async function runOnEveryNode(
  client: SwarmClient,
  owner: Owner,
  what: string,
  spec: { image: string; command: string[]; socket: boolean },
): Promise<void> {
  const labels = jobLabels(owner, { 'piper.ab.global': what });
  const id = await client.createService({
    Name: `piper-ab-${what}-${process.pid}-${Date.now()}`,
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: spec.image,
        Command: spec.command,
        Labels: labels,
        Mounts: spec.socket
          ? [{ Type: 'bind', Source: '/var/run/docker.sock', Target: '/var/run/docker.sock' }]
          : [],
      },
      RestartPolicy: { Condition: 'none', MaxAttempts: 0 },
    },
    Mode: { GlobalJob: {} },
  });
  try {
    for (let waited = 0; ; waited++) {
      const tasks = await client.tasks(id);
      if (tasks.length > 0 && tasks.every((t) => TASK_END_STATES.has(t.state))) {
        const bad = tasks.filter((t) => t.state !== 'complete');
        if (bad.length > 0)
          throw new Error(
            `${what} failed on a node: ${bad.map((t) => `${t.state} ${t.message}`).join('; ')}`,
          );
        return;
      }
      if (waited > 1200) throw new Error(`${what} did not end on every node in 20 minutes`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    await client.removeService(id);
  }
}
