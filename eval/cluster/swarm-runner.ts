// `ab --cluster swarm` (docs/scale.md): every task × arm not yet finished in OUT/ledger.db becomes one
// Swarm job, at most --concurrency in flight, placed by Swarm, once a preflight found every node able
// to run one; an endpoint model's key travels as a secret of the run. Each finished job's ledger is merged
// into OUT/ledger.db and its instance row written there with the node it ran on, one at a time, so an
// interrupted `ab` keeps every result it had read and a rerun skips them. The report is the local
// one's (eval/ab/report.ts, from the ledger alone), plus `node` per instance and `failed_jobs`.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Arm } from '../ab/metrics.js';
import { SwarmClient } from '../../runtime/engine/swarm-client.js';
import { getAbInstance, putAbInstance } from '../ab/instance-rows.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { mergeLedgerFile } from '../../runtime/ledger/merge.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { buildReport } from '../ab/report.js';
import type { AbOptions, AbOutcome, Failure } from '../ab/runner.js';
import type { Progress } from '../ab/progress.js';
import { ConfigError, EXIT } from '../../core/exit-codes.js';
import { selectTasks, taskDigest, type Task } from '../ab/tasks.js';
import { rowOf } from './job-result.js';
import type { JobImages } from './instance-job.js';
import { runOnEveryNode } from './global-job.js';
import { JOB_OWNER_ENV, removeRun, sweepDeadJobs } from './sweep.js';
import type { FailedJobReport } from '../ab/report-shape.js';
import { failedJobReport, JobFailedError } from './job-failure.js';
import { runJobWithRetry } from './job-retry.js';
import { createModelSecret, isEndpointModel, type JobModel } from './model-secret.js';
import { preflight } from './preflight.js';
import type { Owner } from '../../runtime/sandbox/owner.js';

interface SwarmAbOptions extends Pick<
  AbOptions,
  'benchDir' | 'model' | 'arms' | 'taskIds' | 'outDir' | 'concurrency'
> {
  maxTurns: number;
  /** The manager's endpoint. */
  endpoint: string;
  /** Places piper's images where the nodes find them; called once the manager has answered. */
  images(client: SwarmClient): Promise<JobImages>;
  jobTimeoutS: number;
  /** The config file's OpenAI-compatible endpoint settings, as a local run reads them. */
  modelConfig: { baseUrl?: string; apiKey?: string };
  progress: (total: number) => Progress;
  log(line: string): void;
}

interface Pending {
  task: Task;
  arm: Arm;
  index: number;
}

export async function runSwarmAb(opts: SwarmAbOptions): Promise<AbOutcome> {
  const tasks = selectTasks(opts.benchDir, opts.taskIds);
  const client = new SwarmClient(opts.endpoint);
  await client.managerNode();
  const swept = await sweepDeadJobs(client);
  if (swept.services + swept.configs > 0)
    opts.log(
      `start-up sweep: removed ${swept.services} service(s) and ${swept.configs} config(s) of a dead ab`,
    );
  mkdirSync(opts.outDir, { recursive: true });
  const ledger = Ledger.open(resolve(join(opts.outDir, 'ledger.db')));
  try {
    const digests = new Map(tasks.map((t) => [t.id, taskDigest(t)]));
    const pending: Pending[] = [];
    let resumed = 0;
    for (const task of tasks)
      for (const arm of opts.arms) {
        const row = getAbInstance(ledger, { model: opts.model, arm, taskId: task.id });
        if (row && row.taskDigest === digests.get(task.id)) resumed++;
        else pending.push({ task, arm, index: pending.length });
      }
    const progress = opts.progress(pending.length);
    if (resumed > 0) progress.note(`read back ${resumed} finished instance(s)`);
    const failed: FailedJobReport[] = [];
    const failures =
      pending.length > 0 ? await runPending(opts, client, ledger, pending, digests, progress, failed) : [];
    progress.finish();
    const report = buildReport(ledger, {
      benchDir: resolve(opts.benchDir),
      model: opts.model,
      arms: opts.arms,
      tasks,
      digests,
      maxTurns: opts.maxTurns,
      // As a local run without gate ablation or embeddings: the same report from the same rows.
      gateAblation: [],
      embedConfigured: false,
    });
    if (failed.length > 0) report.failed_jobs = failed;
    const ran = pending.length - failures.length;
    return { report, failures, ran, resumed, ablationRuns: 0, wallS: progress.elapsed() };
  } finally {
    ledger.close();
  }
}

/**
 * The images placed, the preflight passed (else one line per problem, and nothing runs), the
 * endpoint's key in a secret of this run, the jobs, then the run's services, configs and secret
 * removed and every node swept, whatever happened.
 */
async function runPending(
  opts: SwarmAbOptions,
  client: SwarmClient,
  ledger: Ledger,
  pending: Pending[],
  digests: ReadonlyMap<string, string>,
  progress: Progress,
  failed: FailedJobReport[],
): Promise<Failure[]> {
  const owner = currentOwner();
  const images = await opts.images(client);
  const problems = await preflight(client, owner, {
    ci: images.ci,
    sandbox: images.sandboxOnNodes,
    architecture: images.architecture,
  });
  if (problems.length > 0)
    throw new ConfigError(`the swarm cannot run these jobs:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  progress.note('preflight: every node can run a job');
  const run = randomBytes(4).toString('hex');
  const stop = onInterrupt(client, ledger, run);
  try {
    const endpoint = isEndpointModel(opts.model)
      ? await createModelSecret(client, owner, run, opts.model, opts.modelConfig)
      : null;
    const jobs = { run, owner, images, endpoint };
    return await runJobs(opts, client, ledger, jobs, pending, digests, progress, failed);
  } finally {
    stop();
    await removeRun(client, run).catch((e: Error) => opts.log(`warning: ${e.message}`));
    await sweepNodes(client, images, opts.log);
  }
}

interface RunJobs {
  run: string;
  owner: Owner;
  images: JobImages;
  endpoint: JobModel | null;
}

async function runJobs(
  opts: SwarmAbOptions,
  client: SwarmClient,
  ledger: Ledger,
  jobs: RunJobs,
  pending: Pending[],
  digests: ReadonlyMap<string, string>,
  progress: Progress,
  failed: FailedJobReport[],
): Promise<Failure[]> {
  const failures: Failure[] = [];
  const queue = [...pending];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { task, arm } = next;
      const t0 = performance.now();
      const job = {
        run: jobs.run,
        index: next.index,
        model: opts.model,
        arm,
        taskId: task.id,
        taskDir: task.dir,
        digest: digests.get(task.id)!,
        timeoutS: opts.jobTimeoutS,
        endpoint: jobs.endpoint,
      };
      try {
        const note = (line: string) => progress.note(line);
        const outcome = await runJobWithRetry(client, jobs.owner, jobs.images, job, note);
        // The runs first, then the row that names them: a row always has its runs beside it.
        mergeLedgerFile(ledger, Buffer.from(outcome.result.ledger, 'base64'));
        putAbInstance(ledger, rowOf(outcome.result, outcome.node));
        const s = ((performance.now() - t0) / 1000).toFixed(1);
        const retried = outcome.retriedAfter ? `, retried after ${outcome.retriedAfter.reason}` : '';
        progress.tick(
          `${arm} ${task.id}: ${outcome.result.resolved ? 'resolved' : 'unresolved'} on ${outcome.node} (${s} s${retried})`,
        );
      } catch (error) {
        const message = (error as Error).message;
        if (error instanceof JobFailedError) failed.push(failedJobReport(task.id, arm, error.failure));
        failures.push({ task: task.id, arm, suppress: null, error: message });
        progress.tick(`${arm} ${task.id}: FAILED: ${message.split('\n')[0]}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  return failures;
}

/**
 * SIGINT/SIGTERM while jobs run: every result merged so far is in the ledger already (each in its
 * own transaction); the run's services and configs are removed, the ledger closed, and the process
 * exits with the interrupt's code. A second signal exits at once (the next `ab` sweeps the rest).
 */
function onInterrupt(client: SwarmClient, ledger: Ledger, run: string): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(EXIT.interrupted);
    stopping = true;
    process.stderr.write(`${signal}: removing this run's Swarm services and configs\n`);
    void removeRun(client, run)
      .catch((error: Error) => process.stderr.write(`cannot remove them: ${error.message}\n`))
      .finally(() => {
        ledger.close();
        process.exit(EXIT.interrupted);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * Every node, once, at the end (`ab --sweep-node`): the finished job containers of this `ab`, which
 * Docker 20.10 leaves behind, and the sandboxes of a job that died, which the next job on that node
 * would sweep, but there may be none.
 */
async function sweepNodes(
  client: SwarmClient,
  images: JobImages,
  log: (line: string) => void,
): Promise<void> {
  const command = ['node', '/app/bin/piper-agent.js', 'ab', '--sweep-node'];
  try {
    const env = [`${JOB_OWNER_ENV}=${formatOwner(currentOwner())}`];
    await runOnEveryNode(client, currentOwner(), 'sweep', { image: images.ci, command, socket: true, env });
  } catch (error) {
    log(`warning: the nodes' sweep after a failed job did not finish: ${(error as Error).message}`);
  }
}
