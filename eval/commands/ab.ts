// `piper-agent ab`: the A/B protocol (docs/policy.md, "The A/B protocol") on a task set — the policy
// loop against the baseline loop with the same model on the same tasks, judged by the tests in the
// sandbox, measured and decided by the decision rule. This file reads the flags; the runner, the
// judge and the report live in eval/ab/, the simulated model in eval/sim/.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GATE_NAMES } from '../ab/gates.js';
import { launchSwarmAb } from '../cluster/launch-swarm.js';
import { sweepNode } from '../cluster/node-sweep.js';
import { launchAb } from '../ab/launch.js';
import { parseArms, parseGateAblation } from '../ab/variants.js';
import { abValidateCommand } from '../swebench/validate-command.js';
import { UsageError } from '../../core/exit-codes.js';
import { numberOption } from '../../core/options.js';

export const AB_HELP = `Usage: piper-agent ab --bench DIR --model M [--arms policy,current] [--tasks IDS] [--out DIR]
                      [--concurrency N] [--ablation] [--gate-ablation G1,G2|all]
                      [--cluster swarm [--cluster-host URL] [--registry HOST:PORT] [--job-timeout S]]

Runs both loops — policy (the policy loop) and current (the baseline: all tools, no gates) — on the
same tasks with the same model, each instance on a fresh copy of its repository, and judges every run
itself: resolved iff every FAIL_TO_PASS and PASS_TO_PASS test passes in the sandbox afterwards. Then
measures each arm (resolve rate, cost and tokens per instance, call precision, tool-selection accuracy,
correct-abstention rate) and applies the decision rule (docs/policy.md).

  --bench DIR|FILE     the task set (e.g. eval/tasks/piperbench), tasks/<id>/{repo,issue.md,task.json};
                       or instances in SWE-bench's format, FILE.jsonl or FILE.json (docs/evaluation.md)
  --repos DIR          with a SWE-bench-format set: a clone or git bundle per repository (owner__name
                       or name, with or without .bundle)
  --debian R|MAP       with a SWE-bench-format set: the sandbox's Debian, bookworm (Python 3.11) or
                       trixie (3.13), or by instance version: 0.12=bookworm,*=trixie
  --model M            sim:SEED (a deterministic simulated model, no endpoint: CI), openai:NAME (JSON
                       protocol) or openai-tools:NAME (native function calling), with OPENAI_BASE_URL
                       and OPENAI_API_KEY set; prices from the config give the cost
  --arms A,B           which arms (default policy,current); the decision needs both
  --tasks IDS          comma-separated task ids (default: every task)
  --sample N --seed S  with a SWE-bench-format set: N valid instances drawn in an order fixed by the
                       seed (the same seed and set give the same N; only what the draw needs is validated)
  --out DIR            where report.json, report.md, ledger.db and runs.log go (default ab-out)
  --concurrency N      instances at once (default 1; each has its own repo copy)
  --ablation           also re-run each resolved instance once per executed model call with that call
                       suppressed, to measure call precision (slow: one run per call)
  --gate-ablation G    the ablation rule: also run the policy arm once per named gate with that
                       gate off (stored as arm policy-no-<gate>), measure it like the arms, and report
                       the five deltas against the full policy arm and keep/delete (delete iff Δresolve
                       = 0, |Δcost| ≤ 5%, |Δtokens| ≤ 5%, Δcall_precision = 0, Δselection = 0; without
                       --ablation call precision is not measured, so no gate can be shown deletable).
                       Gates: ${GATE_NAMES.join(', ')}; or all (this order: the two weakest
                       cases first). retrieval_embed_fallback needs RETRIEVE=embed with an embeddings
                       endpoint; without one it is reported as not applicable. Needs the policy arm.

  --cluster swarm      run each instance as one Docker Swarm job (docs/scale.md): the job runs the CI
                       image on the node Swarm picks, with that node's engine socket, and runs the
                       instance there as a local ab would; its result comes back in the job's logs
                       and the report is a local run's plus \`node\` per instance. --concurrency bounds
                       the jobs in flight. An endpoint model's key reaches the jobs as a Swarm secret
                       of the run; a job failed by its node is retried once on another; every node is
                       checked first (preflight). No --ablation or --gate-ablation.
  --cluster-host URL   the Swarm manager's engine, unix:///PATH or tcp://HOST:PORT (default: DOCKER_HOST)
  --registry HOST:PORT push the CI and sandbox images there (through the manager's engine) for the
                       nodes to pull; without it every node must have both images already
                       (docker save IMAGE | docker -H NODE load)
  --result-block       print the one instance's result (its row and ledger) as a checksummed block on
                       stdout: what a --cluster job runs; needs one --tasks id and one --arms arm
  --sweep-node         remove the sandboxes of dead owners on this engine, and exit: what a --cluster
                       run has every node do after one of its jobs died
  --job-timeout S      seconds one job may take before it is removed and reported failed (default 1800)

\`piper-agent ab validate --bench FILE --repos DIR\` checks a SWE-bench-format set first (ab validate --help);
ab validates any instance it has no result for, and skips invalid ones with their reason in the report.

Finished instances are kept in OUT/ledger.db: running the same command again reads them back instead of
running them, so an interrupted A/B continues and a finished one rewrites the same report.

Exit status: 0 report written for every instance; 1 some instance failed to run (the report says which;
run again to retry them); 2 usage or configuration error; 5 no sandbox engine.`;

const OPTIONS = {
  bench: { type: 'string' },
  model: { type: 'string' },
  arms: { type: 'string' },
  tasks: { type: 'string' },
  out: { type: 'string' },
  concurrency: { type: 'string' },
  ablation: { type: 'boolean', default: false },
  'gate-ablation': { type: 'string' },
  cluster: { type: 'string' },
  'cluster-host': { type: 'string' },
  registry: { type: 'string' },
  'job-timeout': { type: 'string' },
  'result-block': { type: 'boolean', default: false },
  'sweep-node': { type: 'boolean', default: false },
  repos: { type: 'string' },
  debian: { type: 'string' },
  sample: { type: 'string' },
  seed: { type: 'string' },
} as const;

export async function abCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'validate') return abValidateCommand(argv.slice(1));
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (positionals.length > 0)
    throw new UsageError(`ab takes no positional arguments, got '${positionals[0]}'`);
  if (values['sweep-node']) return sweepNode();
  if (!values.bench) throw new UsageError('ab needs --bench DIR (e.g. eval/tasks/piperbench)');
  if (!values.model) throw new UsageError('ab needs --model M: sim:SEED, openai:NAME or openai-tools:NAME');
  const arms = parseArms(values.arms ?? 'policy,current');
  const taskIds = values.tasks
    ? values.tasks
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null;
  if (taskIds && taskIds.length === 0) throw new UsageError('--tasks names no task');
  const concurrency =
    numberOption('--concurrency', values.concurrency, { min: 1, max: 64, integer: true }) ?? 1;
  const gateAblation =
    values['gate-ablation'] === undefined ? [] : parseGateAblation(values['gate-ablation']);
  if (gateAblation.length > 0 && !arms.includes('policy'))
    throw new UsageError('--gate-ablation compares with the full policy arm: --arms must include policy');
  const request = {
    benchDir: values.bench,
    model: values.model,
    arms,
    taskIds,
    outDir: resolve(values.out ?? 'ab-out'),
    concurrency,
    ablation: values.ablation === true,
    gateAblation,
    ...(values.repos ? { repos: resolve(values.repos) } : {}),
    ...(values.debian ? { debian: values.debian } : {}),
    ...sampleOption(values),
  };
  if (values.cluster !== undefined) return launchSwarmAb({ ...request, ...clusterOptions(values) });
  if (values['result-block'] && (taskIds?.length !== 1 || arms.length !== 1))
    throw new UsageError(
      '--result-block (a Swarm job) runs exactly one instance: one --tasks id, one --arms arm',
    );
  return launchAb({ ...request, resultBlock: values['result-block'] === true });
}

/** --sample N --seed S: only with a SWE-bench-format set, and never without a seed. */
function sampleOption(values: Values): { sample?: { size: number; seed: string } } {
  if (values.sample === undefined) {
    if (values.seed !== undefined) throw new UsageError('--seed goes with --sample N');
    return {};
  }
  const size = numberOption('--sample', values.sample, { min: 1, max: 10_000, integer: true })!;
  if (values.seed === undefined)
    throw new UsageError('--sample N needs --seed S: the same seed draws the same sample');
  if (!/\.jsonl?$/i.test(values.bench ?? ''))
    throw new UsageError('--sample draws from a SWE-bench-format set: --bench FILE.jsonl');
  if (values.tasks !== undefined) throw new UsageError('--sample draws from the whole set: no --tasks');
  return { sample: { size, seed: values.seed } };
}

type Values = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>['values'];

/** The cluster flags, checked: where the manager is, the registry, and what a cluster run cannot do. */
function clusterOptions(values: Values): { endpoint: string; registry: string | null; jobTimeoutS: number } {
  if (values.cluster !== 'swarm') throw new UsageError(`--cluster takes swarm, got '${values.cluster}'`);
  if (/^script:/.test(values.model ?? ''))
    throw new UsageError(
      '--cluster swarm runs sim:SEED and endpoint models (openai:, openai-tools:, anthropic:); a script: file is not on the nodes',
    );
  if (values.ablation || values['gate-ablation'] !== undefined)
    throw new UsageError('--cluster swarm runs the arms only: --ablation and --gate-ablation run locally');
  const endpoint = values['cluster-host'] ?? process.env.DOCKER_HOST;
  if (!endpoint)
    throw new UsageError('--cluster swarm needs --cluster-host URL or DOCKER_HOST: the Swarm manager');
  const registry = values.registry ?? null;
  if (registry !== null && !/^[A-Za-z0-9.-]+(:\d+)?$/.test(registry))
    throw new UsageError(`--registry takes HOST:PORT, got '${registry}'`);
  const jobTimeoutS =
    numberOption('--job-timeout', values['job-timeout'], { min: 10, max: 86_400, integer: true }) ?? 1800;
  return { endpoint, registry, jobTimeoutS };
}
