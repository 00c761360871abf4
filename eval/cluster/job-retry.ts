// One instance's job, tried once more on another node when its first try failed for a reason of
// the node (job-failure.ts: its image missing there, its engine refusing, the job killed, the node
// lost). A failure of the instance's own is not retried: it would fail the same anywhere. The
// second try is placed away from the first's node with a Swarm constraint; its failure is final.
import type { SwarmClient } from '../../runtime/engine/swarm-client.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { describeFailure, JobFailedError, type JobFailure } from './job-failure.js';
import { runInstanceJob, type JobImages } from './instance-job.js';

type Job = Omit<Parameters<typeof runInstanceJob>[3], 'avoidNode'>;
type Outcome = Awaited<ReturnType<typeof runInstanceJob>>;

export async function runJobWithRetry(
  client: SwarmClient,
  owner: Owner,
  images: JobImages,
  job: Job,
  note: (line: string) => void,
): Promise<Outcome & { retriedAfter: JobFailure | null }> {
  let first: JobFailure;
  try {
    return {
      ...(await runInstanceJob(client, owner, images, { ...job, avoidNode: null })),
      retriedAfter: null,
    };
  } catch (error) {
    if (!(error instanceof JobFailedError) || !error.failure.nodeFault) throw error;
    first = error.failure;
  }
  const others = (await client.readyNodes()).filter((n) => n !== first.node);
  if (others.length === 0) throw new JobFailedError(first);
  note(`${job.arm} ${job.taskId}: ${describeFailure(first)}; retrying on another node`);
  try {
    const retry = { ...job, index: job.index, avoidNode: first.node || null, attempt: 2 };
    return { ...(await runInstanceJob(client, owner, images, retry)), retriedAfter: first };
  } catch (error) {
    if (!(error instanceof JobFailedError)) throw error;
    throw new JobFailedError({ ...error.failure, retriedAfter: describeFailure(first) });
  }
}
