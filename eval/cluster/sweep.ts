// What `ab --cluster swarm` labels on the manager, and the start-up sweep of what a dead `ab` left:
// every config, secret and service (whose task containers go with it) carries piper.ab-job and its owner
// (host:pid:start, runtime/sandbox/owner.ts), as the sandbox's containers do, so a later `ab` on the
// same host removes exactly those of an owner that no longer runs, and never another live one's.
import { formatOwner, ownerAlive, parseOwner, type Owner } from '../../runtime/sandbox/owner.js';
import type { SwarmClient } from '../../runtime/engine/swarm-client.js';

export const JOB_LABEL = 'piper.ab-job';
export const OWNER_LABEL = 'piper.owner';
/** Whose finished job containers `ab --sweep-node` removes on its node. */
export const JOB_OWNER_ENV = 'PIPER_JOB_OWNER';
/** Which `ab` invocation a job belongs to. */
export const RUN_LABEL = 'piper.ab.run';

export function jobLabels(owner: Owner, extra: Record<string, string>): Record<string, string> {
  return { [JOB_LABEL]: '1', [OWNER_LABEL]: formatOwner(owner), ...extra };
}

/** Removes the services, configs and secrets of dead owners; how many services and configs. */
export async function sweepDeadJobs(client: SwarmClient): Promise<{ services: number; configs: number }> {
  const dead = (labels: Record<string, string>) => {
    const owner = parseOwner(labels[OWNER_LABEL] ?? '');
    return owner !== null && !ownerAlive(owner);
  };
  const services = (await client.listServices(JOB_LABEL)).filter((s) => dead(s.labels));
  for (const s of services) await client.removeService(s.id);
  // A config in use cannot be removed: the services go first.
  const configs = (await client.listConfigs(JOB_LABEL)).filter((c) => dead(c.labels));
  for (const c of configs) await client.removeConfig(c.id);
  for (const c of (await client.listSecrets(JOB_LABEL)).filter((c) => dead(c.labels)))
    await client.removeSecret(c.id).catch(() => undefined);
  return { services: services.length, configs: configs.length };
}

/** Removes every service, config and secret of one `ab` run (its interrupt handler's clean-up, its end). */
export async function removeRun(client: SwarmClient, run: string): Promise<void> {
  const label = `${RUN_LABEL}=${run}`;
  for (const s of await client.listServices(label)) await client.removeService(s.id);
  for (let i = 0; i < 30; i++) {
    const configs = await client.listConfigs(label);
    const secrets = await client.listSecrets(label);
    if (configs.length + secrets.length === 0) return;
    // A config or secret stays in use until the services' containers are gone.
    await Promise.all([
      ...configs.map((c) => client.removeConfig(c.id).catch(() => undefined)),
      ...secrets.map((c) => client.removeSecret(c.id).catch(() => undefined)),
    ]);
    await new Promise((r) => setTimeout(r, 500));
  }
}
