// `piper-agent ab`: the A/B protocol of spec/tool-calling-policy.md section 9 on a piperbench task
// set — the policy loop against the baseline loop with the same model on the same tasks, judged by
// the tests in the sandbox, measured and decided by the spec's rule (cli/ab/, policy/ab/).
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Arm } from '../../policy/ab/metrics.js';
import { parseSimSpec, SimModel } from '../../policy/ab/sim-model.js';
import { GATE_NAMES } from '../../policy/gates.js';
import { resolveModel } from '../../runtime/model/resolve.js';
import { Progress } from '../ab/progress.js';
import { runAb } from '../ab/runner.js';
import { writeReport } from '../ab/report.js';
import { simTaskOf } from '../ab/tasks.js';
import { parseGateAblation } from '../ab/variants.js';
import { embedRetrievalConfigured } from '../fix/run-fix.js';
import { loadConfig } from '../config.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { numberOption } from '../options.js';

export const AB_HELP = `Usage: piper-agent ab --bench DIR --model M [--arms policy,current] [--tasks IDS] [--out DIR]
                      [--concurrency N] [--ablation] [--gate-ablation G1,G2|all]

Runs both loops — policy (this spec's loop) and current (the baseline: all tools, no gates) — on the
same tasks with the same model, each instance on a fresh copy of its repository, and judges every run
itself: resolved iff every FAIL_TO_PASS and PASS_TO_PASS test passes in the sandbox afterwards. Then
measures each arm (resolve rate, cost and tokens per instance, call precision, tool-selection accuracy,
correct-abstention rate) and applies the spec's decision rule.

  --bench DIR          the task set (e.g. bench/piperbench), tasks/<id>/{repo,issue.md,task.json}
  --model M            sim:SEED (a deterministic simulated model, no endpoint: CI), openai:NAME (JSON
                       protocol) or openai-tools:NAME (native function calling), with OPENAI_BASE_URL
                       and OPENAI_API_KEY set; prices from the config give the cost
  --arms A,B           which arms (default policy,current); the decision needs both
  --tasks IDS          comma-separated task ids (default: every task)
  --out DIR            where report.json, report.md, ledger.db and runs.log go (default ab-out)
  --concurrency N      instances at once (default 1; each has its own repo copy)
  --ablation           also re-run each resolved instance once per executed model call with that call
                       suppressed, to measure call precision (slow: one run per call)
  --gate-ablation G    the spec's ablation rule: also run the policy arm once per named gate with that
                       gate off (stored as arm policy-no-<gate>), measure it like the arms, and report
                       the five deltas against the full policy arm and keep/delete (delete iff Δresolve
                       = 0, |Δcost| ≤ 5%, |Δtokens| ≤ 5%, Δcall_precision = 0, Δselection = 0; without
                       --ablation call precision is not measured, so no gate can be shown deletable).
                       Gates: ${GATE_NAMES.join(', ')}; or all (this order: the spec's two weakest
                       cases first). retrieval_embed_fallback needs RETRIEVE=embed with an embeddings
                       endpoint; without one it is reported as not applicable. Needs the policy arm.

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
} as const;

export async function abCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (positionals.length > 0)
    throw new UsageError(`ab takes no positional arguments, got '${positionals[0]}'`);
  if (!values.bench) throw new UsageError('ab needs --bench DIR (e.g. bench/piperbench)');
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
  const outDir = resolve(values.out ?? 'ab-out');
  const { config } = loadConfig({ repo: process.cwd() });

  const seed = parseSimSpec(values.model);
  const shared =
    seed === null
      ? resolveModel(values.model, {
          config: { baseUrl: config.baseUrl, apiKey: config.apiKey, prices: config.prices },
        })
      : null;
  mkdirSync(outDir, { recursive: true });
  const log = openLog(outDir);
  const outcome = await runAb({
    benchDir: values.bench,
    model: values.model,
    arms,
    taskIds,
    outDir,
    concurrency,
    ablation: values.ablation === true,
    gateAblation,
    embedConfigured: embedRetrievalConfigured(),
    config: { ...config, model: values.model },
    modelFor: (task) => shared ?? new SimModel(seed!, simTaskOf(task)),
    progress: (total) => new Progress(process.stderr, total),
    log,
  });
  const files = writeReport(outDir, outcome.report);
  const r = outcome.report;
  process.stderr.write(
    `${outcome.ran} instance(s) run, ${outcome.resumed} read back from the ledger, ${outcome.ablationRuns} ablation re-run(s), in ${outcome.wallS.toFixed(1)} s\n` +
      (r.decision
        ? `decision: ${r.decision.verdict} — ${r.decision.reason}\n`
        : `decision: ${r.decision_note}\n`) +
      (r.ablation_gates?.gates ?? []).map((g) => `gate ${g.gate}: ${g.verdict} — ${g.reason}\n`).join('') +
      `report: ${files.md}\n        ${files.json}\n`,
  );
  for (const f of outcome.failures)
    process.stderr.write(
      `failed: ${f.arm} ${f.task}${f.suppress === null ? '' : ` without call ${f.suppress}`}: ${f.error}\n`,
    );
  return outcome.failures.length > 0 ? EXIT.failure : EXIT.ok;
}

export function parseArms(text: string): Arm[] {
  const arms = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = arms.find((a) => a !== 'policy' && a !== 'current');
  if (bad !== undefined) throw new UsageError(`--arms takes policy and/or current, got '${bad}'`);
  if (arms.length === 0) throw new UsageError('--arms names no arm');
  return [...new Set(arms)] as Arm[];
}

/** runFix's informational lines (start-up sweeps and the like) go to OUT/runs.log, not over the progress bar. */
function openLog(outDir: string): (line: string) => void {
  return (line) => {
    try {
      appendFileSync(join(outDir, 'runs.log'), `${new Date().toISOString()} ${line}\n`);
    } catch {
      // The log is a convenience; a full disk shows up in the ledger writes, with a proper error.
    }
  };
}
