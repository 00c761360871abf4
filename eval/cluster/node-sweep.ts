// `ab --sweep-node`, run by `ab --cluster swarm` as a global job after a job died: piper's start-up
// sweep of this node's engine (runtime/sandbox/orphans.ts), which removes the sandboxes whose owner
// (a job container that is gone) no longer runs, and nothing else.
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { removeOrphans } from '../../runtime/sandbox/orphans.js';

export async function sweepNode(): Promise<number> {
  const { engine } = await connectEngine();
  const removed = await removeOrphans(engine, (line) => process.stderr.write(`${line}\n`));
  process.stderr.write(`swept ${removed.length} orphan container(s)\n`);
  return 0;
}
