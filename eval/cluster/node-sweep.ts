// `ab --sweep-node`, which `ab --cluster swarm` runs once on every node at the end of a run: piper's
// start-up sweep of this node's engine (runtime/sandbox/orphans.ts: the sandboxes of a job that
// died), and the exited job containers of the `ab` named by PIPER_JOB_OWNER. Docker 20.10 never
// removes the containers of a removed replicated-job service (moby/moby#44312, fixed in swarmkit
// #3112, after 20.10); their logs are read by then. Running ones, and other owners', are left alone.
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { removeOrphans } from '../../runtime/sandbox/orphans.js';
import { JOB_LABEL, JOB_OWNER_ENV, OWNER_LABEL } from './sweep.js';

export async function sweepNode(): Promise<number> {
  const { engine } = await connectEngine();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const orphans = await removeOrphans(engine, log);
  const owner = process.env[JOB_OWNER_ENV];
  let jobs = 0;
  if (owner) {
    const mine = await engine.listContainers([`${JOB_LABEL}=1`, `${OWNER_LABEL}=${owner}`]);
    for (const c of mine.filter((c) => c.state === 'exited' || c.state === 'dead' || c.state === 'created')) {
      await engine.remove(c.id);
      jobs++;
    }
  }
  log(`swept ${orphans.length} orphan sandbox(es) and ${jobs} finished job container(s)`);
  return 0;
}
