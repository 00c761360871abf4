// `piper-agent ab`: both arms on the identical tasks with the identical model, each instance on a
// fresh copy of its repository, judged by the runner in the sandbox, every run in OUT/ledger.db.
// Finished instances (and each finished ablation re-run) are read back from the ledger, not re-run,
// so an interrupted A/B continues where it stopped and a finished one rebuilds the same report.
// With gate ablation, the policy arm also runs once per named gate with that gate off, under its own
// arm key (variants.ts), on the same tasks with the same model, and is measured by the same code.
// Up to --concurrency instances run at once; the sandbox's limiter bounds the containers.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Arm } from './metrics.js';
import type { GateName } from './gates.js';
import { getAbInstance, putAbInstance, setAbAblation } from './instance-rows.js';
import type { ChatModel } from '../../runtime/model/types.js';
import type { Config } from '../../core/config.js';
import { openSession, type Session } from '../../core/session.js';
import { openSweSet } from '../swebench/ab-set.js';
import type { SampleRequest } from '../swebench/sample.js';
import { isInstanceFile } from '../swebench/instance-file.js';
import type { PreparedSet } from '../swebench/prepare.js';
import { factsOfRun } from './facts.js';
import { runInstance, type InstanceContext } from './instance.js';
import type { Progress } from './progress.js';
import { buildReport, type AbReport } from './report.js';
import { isComplete, type StoredAblation, type StoredDetails } from './stored.js';
import { callKey } from './suppress.js';
import { selectTasks, taskDigest, type Task } from './tasks.js';
import { armVariant, gateVariant, notApplicable, type Variant } from './variants.js';
import { getCall } from '../../runtime/ledger/calls.js';

export interface AbOptions {
  benchDir: string;
  /** The model spec as given (sim:1, openai:NAME): the key finished instances are stored under. */
  model: string;
  arms: Arm[];
  taskIds: string[] | null;
  outDir: string;
  concurrency: number;
  ablation: boolean;
  /** Gates to ablate, in order (empty: none); the policy arm must be among `arms`. */
  gateAblation?: GateName[];
  /** Whether embedding retrieval is configured (the embed fallback's ablation needs it). */
  embedConfigured?: boolean;
  config: Config;
  modelFor(task: Task): ChatModel;
  progress: (total: number) => Progress;
  /** A SWE-bench-format set (--bench FILE.jsonl): its repositories and Debian choice. */
  repos?: string;
  debian?: string;
  /** --sample N --seed S over a SWE-bench-format set. */
  sample?: SampleRequest;
  /** Called with the report as it stands after each finished instance (it is rewritten as they finish). */
  onReport?: (report: AbReport) => void;
  log(line: string): void;
}

export interface Failure {
  task: string;
  /** The arm key: policy, current or policy-no-<gate>. */
  arm: string;
  /** null: the instance itself; a number: that ablation re-run. */
  suppress: number | null;
  error: string;
}

export interface AbOutcome {
  report: AbReport;
  failures: Failure[];
  /** Instances run now, and read back from the ledger. */
  ran: number;
  resumed: number;
  ablationRuns: number;
  wallS: number;
}

type Job = { task: Task; variant: Variant; suppress: number | null };

/** What the instances of one A/B share: the ledger, the context runs get, and the tallies. */
interface AbState {
  opts: AbOptions;
  ledger: InstanceContext['ledger'];
  ctx: InstanceContext;
  digests: Map<string, string>;
  /** Each ablated instance's re-run state, by `arm key/task id`. */
  ablations: Map<string, StoredAblation>;
  failures: Failure[];
  counts: { ran: number; resumed: number; ablationRuns: number };
  report(): AbReport;
}

type InstanceRunResult = Awaited<ReturnType<typeof runInstance>>;

export async function runAb(opts: AbOptions): Promise<AbOutcome> {
  const swe = isInstanceFile(opts.benchDir);
  const tasks: Task[] = swe ? [] : selectTasks(opts.benchDir, opts.taskIds);
  mkdirSync(opts.outDir, { recursive: true });
  const ledgerPath = resolve(join(opts.outDir, 'ledger.db'));
  const session = await openSession({
    repo: swe ? dirname(resolve(opts.benchDir)) : resolve(opts.benchDir),
    ledger: ledgerPath,
    image: opts.config.image,
    runtime: opts.config.sandboxRuntime,
    sandbox: { poolSize: 0, concurrency: Math.max(2, opts.concurrency) },
    log: opts.log,
  });
  const set = swe ? await openSet(opts, session) : null;
  if (set) tasks.push(...set.tasks);
  const st = abState(opts, session, ledgerPath, tasks, set);
  const { initial, later } = planJobs(st, tasks);
  const progress = opts.progress(initial.length + later.length);
  if (st.counts.resumed > 0)
    progress.note(`read back ${st.counts.resumed} finished instance(s) from ${ledgerPath}`);
  try {
    await drain(Math.max(1, opts.concurrency), [...initial, ...later], (job, push) =>
      runJob(st, progress, job, push),
    );
    progress.finish();
    // The report is built from the ledger rows alone, so a resumed run rebuilds the same report.
    const { ran, resumed, ablationRuns } = st.counts;
    return {
      report: st.report(),
      failures: st.failures,
      ran,
      resumed,
      ablationRuns,
      wallS: progress.elapsed(),
    };
  } finally {
    set?.remove();
    await session.close();
  }
}

function abState(
  opts: AbOptions,
  session: Session,
  ledgerPath: string,
  tasks: Task[],
  set: PreparedSet | null,
): AbState {
  const ledger = session.ledger;
  const ctx: InstanceContext = {
    ledgerPath,
    ledger,
    judge: { sandbox: session.sandbox, ledger, owner: session.owner },
    sweJudge: {
      sandbox: session.sandbox,
      ledger,
      owner: session.owner,
      engine: session.engine,
      runtime: session.sandbox.runtime ?? null,
      log: opts.log,
    },
    config: opts.config,
    modelFor: opts.modelFor,
    log: opts.log,
  };
  const digests = new Map(tasks.map((t) => [t.id, taskDigest(t)]));
  const report = (): AbReport =>
    buildReport(ledger, {
      invalid: set?.invalid ?? [],
      benchDir: resolve(opts.benchDir),
      model: opts.model,
      arms: opts.arms,
      tasks,
      digests,
      maxTurns: opts.config.maxTurns ?? 30,
      gateAblation: opts.gateAblation ?? [],
      embedConfigured: opts.embedConfigured === true,
    });
  const counts = { ran: 0, resumed: 0, ablationRuns: 0 };
  return { opts, ledger, ctx, digests, ablations: new Map(), failures: [], counts, report };
}

/** An instance's key in the ledger's A/B rows. */
function keyOf(st: AbState, task: Task, variant: Variant) {
  return { model: st.opts.model, arm: variant.key, taskId: task.id };
}

/** The arms, then the policy arm with each applicable ablated gate off. */
function variantsOf(opts: AbOptions): Variant[] {
  const embedConfigured = opts.embedConfigured === true;
  const gates = (opts.gateAblation ?? []).filter((g) => notApplicable(g, { embedConfigured }) === null);
  return [...opts.arms.map(armVariant), ...gates.map(gateVariant)];
}

/**
 * The instances to run (not finished, or finished on a task that changed since) and, of the finished
 * ones read back, the ablation re-runs still to do.
 */
function planJobs(st: AbState, tasks: readonly Task[]): { initial: Job[]; later: Job[] } {
  const variants = variantsOf(st.opts);
  const initial: Job[] = [];
  const later: Job[] = [];
  for (const task of tasks) {
    for (const variant of variants) {
      const row = getAbInstance(st.ledger, keyOf(st, task, variant));
      if (!row || row.taskDigest !== st.digests.get(task.id)) {
        initial.push({ task, variant, suppress: null });
        continue;
      }
      st.counts.resumed++;
      const stored = row.ablation as StoredAblation | null;
      if (st.opts.ablation && row.resolved && !isComplete(stored))
        later.push(...ablationJobs(st, task, variant, row.details as StoredDetails, stored));
    }
  }
  return { initial, later };
}

/** One re-run per model call not yet re-run; the ablation state is stored first when it is new. */
function ablationJobs(
  st: AbState,
  task: Task,
  variant: Variant,
  details: StoredDetails,
  stored: StoredAblation | null,
): Job[] {
  const state: StoredAblation = stored ?? { calls: details.facts.modelCalls.length, entries: [] };
  if (!stored) setAbAblation(st.ledger, keyOf(st, task, variant), state);
  st.ablations.set(`${variant.key}/${task.id}`, state);
  const done = new Set(state.entries.map((e) => e.index));
  return Array.from({ length: state.calls }, (_, i) => i)
    .filter((i) => !done.has(i))
    .map((i) => ({ task, variant, suppress: i }));
}

/** Runs one job and records it; a failure is recorded and does not stop the others. */
async function runJob(st: AbState, progress: Progress, job: Job, push: (jobs: Job[]) => void): Promise<void> {
  const { variant } = job;
  const label = `${variant.key} ${job.task.id}${job.suppress === null ? '' : ` without call ${job.suppress}`}`;
  try {
    const run = await runInstance(st.ctx, job.task, variant, job.suppress ?? undefined);
    if (run.result.outcome === 'error')
      throw new Error(`the run ${run.result.run_id} ended in error: ${run.result.reason}`);
    if (job.suppress === null) recordInstance(st, progress, job, run, push);
    else recordAblationRun(st, job, job.suppress, run);
    st.opts.onReport?.(st.report());
    progress.tick(
      `${label}: ${run.judgement.resolved ? 'resolved' : 'unresolved'} (${run.result.outcome}, ${run.wallS.toFixed(1)} s)`,
    );
  } catch (error) {
    st.failures.push({
      task: job.task.id,
      arm: variant.key,
      suppress: job.suppress,
      error: (error as Error).message,
    });
    progress.tick(`${label}: FAILED: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** Stores a finished instance's row; a resolved one, with --ablation, adds its re-runs to the queue. */
function recordInstance(
  st: AbState,
  progress: Progress,
  job: Job,
  run: InstanceRunResult,
  push: (jobs: Job[]) => void,
): void {
  const { variant } = job;
  const facts = factsOfRun(st.ledger, run.result.run_id, variant.arm, job.task, run.judgement.resolved);
  const { ablation: _none, ...kept } = facts;
  const details: StoredDetails = {
    facts: kept,
    judgement: run.judgement,
    reason: run.result.reason,
    wallS: Math.round(run.wallS * 10) / 10,
  };
  putAbInstance(st.ledger, {
    ...keyOf(st, job.task, variant),
    taskDigest: st.digests.get(job.task.id)!,
    runId: run.result.run_id,
    resolved: run.judgement.resolved,
    details,
  });
  st.counts.ran++;
  if (st.opts.ablation && run.judgement.resolved) {
    const jobs = ablationJobs(st, job.task, variant, details, null);
    progress.grow(jobs.length);
    push(jobs);
  }
}

/**
 * Adds a re-run's entry to its instance's ablation state, in call order. It diverged when what the
 * run suppressed is not the call the original run made at that index.
 */
function recordAblationRun(st: AbState, job: Job, suppress: number, run: InstanceRunResult): void {
  const { variant } = job;
  const state = st.ablations.get(`${variant.key}/${job.task.id}`)!;
  const row = getAbInstance(st.ledger, keyOf(st, job.task, variant))!;
  const original = (row.details as StoredDetails).facts.modelCalls[suppress]!;
  const call = getCall(st.ledger, original.callId);
  const subject = call ? callKey(call.tool, JSON.parse(call.args) as Record<string, unknown>) : null;
  const diverged = run.suppression?.suppressed?.subject !== subject;
  state.entries = [
    ...state.entries,
    {
      index: suppress,
      tool: original.tool,
      runId: run.result.run_id,
      resolved: run.judgement.resolved,
      diverged,
      suppressedCalls: run.suppression?.count ?? 0,
    },
  ].sort((a, b) => a.index - b.index);
  setAbAblation(st.ledger, keyOf(st, job.task, variant), state);
  st.counts.ablationRuns++;
}

/** The SWE-bench-format set of --bench FILE, read, checked out and validated; on failure the session closes. */
async function openSet(opts: AbOptions, session: Session): Promise<PreparedSet> {
  try {
    const request = {
      bench: opts.benchDir,
      repos: opts.repos,
      debian: opts.debian,
      taskIds: opts.taskIds,
      sample: opts.sample,
    };
    return await openSweSet(request, session, opts.outDir, opts.log);
  } catch (error) {
    await session.close();
    throw error;
  }
}

/** Runs jobs on `workers` workers; a job may add jobs (an instance adds its ablation re-runs). */
async function drain<J>(
  workers: number,
  initial: J[],
  work: (job: J, push: (jobs: J[]) => void) => Promise<void>,
): Promise<void> {
  const jobs = [...initial];
  let active = 0;
  let waiting: Array<() => void> = [];
  const wake = () => {
    const all = waiting;
    waiting = [];
    for (const resume of all) resume();
  };
  const push = (more: J[]) => {
    jobs.push(...more);
    wake();
  };
  const worker = async () => {
    for (;;) {
      const job = jobs.shift();
      if (job === undefined) {
        if (active === 0) return wake();
        await new Promise<void>((r) => waiting.push(r));
        continue;
      }
      active++;
      try {
        await work(job, push);
      } finally {
        active--;
        wake();
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}
