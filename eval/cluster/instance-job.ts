// One A/B instance as one Swarm job (docs/scale.md): its task directory travels as a Swarm config (a
// gzipped tar; no shared filesystem, no per-run image), the job runs the CI image with the node's
// engine socket mounted and runs `ab` on that one instance there, exactly as a local `ab` would, and
// prints its result block; this side waits for the task to end, reads the block from the service's
// logs and removes the service and the config, whatever happened. A job that ends without a valid
// block throws JobFailedError, with its exit reason and its last output lines (job-failure.ts).
import { createGzip } from 'node:zlib';
import { packDirectory } from '../../runtime/images/pack-dir.js';
import { TASK_END_STATES, type SwarmClient, type SwarmTask } from '../../runtime/engine/swarm-client.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { JOB_SANDBOX_IMAGE_ENV } from './job-prepare.js';
import { JobFailedError, readFailure } from './job-failure.js';
import { readJobResult, type JobResult } from './job-result.js';
import { modelSecretMount, type JobModel } from './model-secret.js';
import { jobLabels, RUN_LABEL } from './sweep.js';

/** Swarm refuses a config over 500 KiB. */
const CONFIG_LIMIT = 500 * 1024;
const INPUT_FILE = '/piper-job/input.tgz';
const POLL_MS = 1000;

export interface JobImages {
  /** The CI image as the nodes name it (REGISTRY/piper-agent-ci:<hash12>, or the local name). */
  ci: string;
  /** Set when the nodes pull the sandbox image from a registry under this name. */
  sandbox: string | null;
  /** The sandbox image's name on the nodes (the registry's, or the local one). */
  sandboxOnNodes: string;
  /** The CI image's architecture: the nodes' must be the same. */
  architecture: string;
}

interface InstanceJob {
  run: string;
  index: number;
  model: string;
  arm: string;
  taskId: string;
  taskDir: string;
  digest: string;
  /** Seconds a job may take from creation to its end (then it is removed and reported failed). */
  timeoutS: number;
  /** How the job reaches an endpoint model (null: a simulated one, nothing to reach). */
  endpoint: JobModel | null;
  /** A node this job must not run on (its first try failed there for a reason of the node). */
  avoidNode: string | null;
  /** 2 for the retry on another node: its service and config have names of their own. */
  attempt?: number;
}

interface JobOutcome {
  result: JobResult;
  /** The Swarm node id the instance ran on. */
  node: string;
  inputBytes: number;
}

/**
 * The shell the job runs: the endpoint's key from its secret file into the variable the model
 * client reads (only in this process's environment, never in the container's config), unpack the
 * config, then `ab` on the one instance, printing its result block.
 */
const SCRIPT = [
  'set -eu',
  'if [ -n "${PIPER_JOB_KEY_VAR:-}" ]; then export "$PIPER_JOB_KEY_VAR=$(cat "$PIPER_JOB_KEY_FILE")"; fi',
  'dir=/tmp/piper-job/bench/tasks/"$PIPER_JOB_TASK"',
  'mkdir -p "$dir"',
  `tar -xzf ${INPUT_FILE} -C "$dir"`,
  'exec node /app/bin/piper-agent.js ab --bench /tmp/piper-job/bench --model "$PIPER_JOB_MODEL" --arms "$PIPER_JOB_ARM" --tasks "$PIPER_JOB_TASK" --out /tmp/piper-job/out --result-block',
].join('\n');

export async function runInstanceJob(
  client: SwarmClient,
  owner: Owner,
  images: JobImages,
  job: InstanceJob,
): Promise<JobOutcome> {
  const labels = jobLabels(owner, {
    [RUN_LABEL]: job.run,
    'piper.ab.task': job.taskId,
    'piper.ab.arm': job.arm,
  });
  const name = `piper-ab-${job.run}-${job.index}${(job.attempt ?? 1) > 1 ? `-try${job.attempt}` : ''}`;
  const input = await gzippedTar(job.taskDir);
  if (input.length > CONFIG_LIMIT)
    throw new Error(
      `the task's files are ${Math.round(input.length / 1024)} KiB gzipped, over Swarm's 500 KiB config limit`,
    );
  const configId = await client.createConfig(name, input, labels);
  let serviceId: string | null = null;
  try {
    serviceId = await client.createService(serviceSpec(name, labels, images, job, configId));
    const task = await waitForEnd(client, serviceId, job.timeoutS);
    const logs = await client.serviceLogs(serviceId);
    if (!task) throw new JobFailedError(readFailure(null, logs, `the job did not end in ${job.timeoutS} s`));
    const key = { model: job.model, arm: job.arm, taskId: job.taskId };
    const read = readJobResult(logs.stdout, key, job.digest);
    if (!read.ok) throw new JobFailedError(readFailure(task, logs, read.reason));
    return { result: read.result, node: task.nodeId, inputBytes: input.length };
  } finally {
    if (serviceId) await client.removeService(serviceId);
    // Not over the job's own outcome: a config still held is removed with the run at its end.
    await removeConfigWhenFree(client, configId).catch(() => undefined);
  }
}

function serviceSpec(
  name: string,
  labels: Record<string, string>,
  images: JobImages,
  job: InstanceJob,
  configId: string,
): Record<string, unknown> {
  const env = [
    'CI=true',
    `PIPER_JOB_MODEL=${job.model}`,
    `PIPER_JOB_ARM=${job.arm}`,
    `PIPER_JOB_TASK=${job.taskId}`,
    ...(images.sandbox ? [`${JOB_SANDBOX_IMAGE_ENV}=${images.sandbox}`] : []),
  ];
  const secret = job.endpoint ? modelSecretMount(job.endpoint) : null;
  return {
    Name: name,
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: images.ci,
        Command: ['/bin/sh', '-c', SCRIPT],
        Env: [...env, ...(secret?.env ?? [])],
        Labels: labels,
        Init: true,
        Mounts: [{ Type: 'bind', Source: '/var/run/docker.sock', Target: '/var/run/docker.sock' }],
        Configs: [
          {
            ConfigID: configId,
            ConfigName: name,
            File: { Name: INPUT_FILE, UID: '0', GID: '0', Mode: 0o444 },
          },
        ],
        ...(secret ? { Secrets: [secret.reference] } : {}),
      },
      // The node's own network for a job that calls an endpoint (its sandboxes still have none).
      ...(secret ? { Networks: [{ Target: 'host' }] } : {}),
      ...(job.avoidNode ? { Placement: { Constraints: [`node.id!=${job.avoidNode}`] } } : {}),
      // A job that dies is reported, not restarted: a rerun of `ab` runs it again.
      RestartPolicy: { Condition: 'none', MaxAttempts: 0 },
    },
    Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
  };
}

/** The job's task once it has ended (the last one Swarm made for it); null when the time is up. */
async function waitForEnd(
  client: SwarmClient,
  serviceId: string,
  timeoutS: number,
): Promise<SwarmTask | null> {
  const deadline = Date.now() + timeoutS * 1000;
  for (;;) {
    const tasks = await client.tasks(serviceId);
    const ended = tasks.find((t) => TASK_END_STATES.has(t.state));
    if (ended && tasks.every((t) => TASK_END_STATES.has(t.state))) return ended;
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** A config stays in use until the service's task containers are gone: retried for a while. */
async function removeConfigWhenFree(client: SwarmClient, id: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await client.removeConfig(id);
    } catch (error) {
      if (i >= 30) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function gzippedTar(dir: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const gz = packDirectory(dir).pipe(createGzip());
  for await (const chunk of gz) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
