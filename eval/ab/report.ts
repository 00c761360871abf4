// The A/B report, built from the ledger's ab_instances rows alone (never from memory of this
// invocation), so a resumed or repeated `piper-agent ab` over the same OUT writes the same report.
// report.json holds every measure, every instance, the decision and why, and the ablation deltas;
// report.md (report-md.ts) renders the tables a person reads.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decide } from './decision.js';
import { abstained, armMeasures, selectionScore, type Arm, type InstanceFacts } from './metrics.js';
import { SIM_PRICE, SIM_RATES } from '../sim/sim-model.js';
import type { GateName } from './gates.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { buildGateAblation } from './gate-report.js';
import { renderMarkdown } from './report-md.js';
import { readFinished, type StoredAblation, type StoredDetails } from './stored.js';
import { symbolTriggersByArm, symbolTriggersOfRun, type SymbolTriggerCount } from './symbol-triggers.js';
import type { Task } from './tasks.js';
import { isSweTask } from '../swebench/swe-task.js';
import { REPORT_SCHEMA, type AbReport, type InstanceReport } from './report-shape.js';

export type { AbReport } from './report-shape.js';

export interface ReportInput {
  benchDir: string;
  model: string;
  arms: Arm[];
  tasks: readonly Task[];
  digests: ReadonlyMap<string, string>;
  maxTurns: number;
  /** Gates ablated (--gate-ablation), in order; absent or empty: no gate-ablation section. */
  gateAblation?: readonly GateName[];
  embedConfigured?: boolean;
  invalid?: ReadonlyArray<{ instance: string; reason: string }>;
}

export function buildReport(ledger: Ledger, input: ReportInput): AbReport {
  const { facts, instances, missing } = readInstances(ledger, input);
  const measures: AbReport['measures'] = {};
  for (const arm of input.arms) measures[arm] = armMeasures(arm, facts);
  const complete = missing.length === 0;
  const { decision, decisionNote } = decisionOf(measures, missing);
  const ablation = ablationSummary(instances, measures, input.arms);
  const simulated = input.model.startsWith('sim:');
  // The key order is report.json's field order: keep it.
  return {
    schema: REPORT_SCHEMA,
    bench: input.benchDir,
    model: input.model,
    simulated,
    arms: input.arms,
    tasks: input.tasks.map((t) => t.id),
    max_turns: input.maxTurns,
    ...goldLabelsFrom(input.tasks),
    complete,
    missing,
    measures,
    decision,
    decision_note: decisionNote,
    ablation,
    symbol_triggers: symbolTriggersByArm(instances, input.arms),
    instances,
    invalid: [...(input.invalid ?? [])],
    ...gateAblationPart(ledger, input, measures, missing),
    notes: notes(simulated, ablation.measured),
  };
}

/** Where a SWE-bench-format set's labels came from: the tasks its gold-label file names. */
function goldLabelsFrom(tasks: readonly Task[]): Pick<AbReport, 'gold_labels_from'> {
  const swe = tasks.filter(isSweTask);
  if (swe.length === 0) return {};
  const fromFile = swe.filter((t) => t.swe.labelsFile !== null);
  return {
    gold_labels_from: { file: fromFile[0]?.swe.labelsFile ?? null, tasks: fromFile.map((t) => t.id) },
  };
}

/** Every (task, arm) instance's finished run from the ledger, in task-then-arm order; those not found are missing. */
function readInstances(
  ledger: Ledger,
  input: ReportInput,
): { facts: InstanceFacts[]; instances: InstanceReport[]; missing: AbReport['missing'] } {
  const facts: InstanceFacts[] = [];
  const instances: InstanceReport[] = [];
  const missing: AbReport['missing'] = [];
  for (const task of input.tasks) {
    for (const arm of input.arms) {
      const found = readFinished(
        ledger,
        { model: input.model, arm, taskId: task.id },
        input.digests.get(task.id),
        task.gold_labels,
      );
      if (!found) {
        missing.push({ task: task.id, arm });
        continue;
      }
      facts.push(found.facts);
      const triggers = symbolTriggersOfRun(ledger, found.facts.runId);
      instances.push(instanceReport(found.facts, found.details, found.ablation, triggers));
    }
  }
  return { facts, instances, missing };
}

/** A decision needs both arms and a complete sample; otherwise the note says which is lacking. */
function decisionOf(
  measures: AbReport['measures'],
  missing: AbReport['missing'],
): { decision: AbReport['decision']; decisionNote: AbReport['decision_note'] } {
  const both = measures.policy && measures.current;
  const complete = missing.length === 0;
  const decision = both && complete ? decide(measures.policy!, measures.current!) : null;
  const decisionNote = !both
    ? 'one arm only: no decision'
    : !complete
      ? `incomplete sample (${missing.length} instance(s) missing): no decision; run the same command again to finish`
      : null;
  return { decision, decisionNote };
}

/** The call-ablation totals over all instances, and per arm whether call precision was measured. */
function ablationSummary(
  instances: readonly InstanceReport[],
  measures: AbReport['measures'],
  arms: readonly Arm[],
): AbReport['ablation'] {
  const reruns = instances.flatMap((i) => i.ablation ?? []);
  const measured: AbReport['ablation']['measured'] = {};
  for (const arm of arms) measured[arm] = measures[arm]!.callPrecision.value !== null;
  return {
    measured,
    reruns: reruns.length,
    necessary: reruns.filter((r) => r.necessary).length,
    diverged: reruns.filter((r) => r.diverged).length,
  };
}

/** The ablation_gates field, present only when gates were ablated (--gate-ablation). */
function gateAblationPart(
  ledger: Ledger,
  input: ReportInput,
  measures: AbReport['measures'],
  missing: AbReport['missing'],
): Pick<AbReport, 'ablation_gates'> {
  if (!input.gateAblation?.length) return {};
  return {
    ablation_gates: buildGateAblation(ledger, {
      model: input.model,
      tasks: input.tasks,
      digests: input.digests,
      gates: input.gateAblation,
      embedConfigured: input.embedConfigured === true,
      full: measures.policy,
      fullComplete: !missing.some((m) => m.arm === 'policy'),
    }),
  };
}

function instanceReport(
  f: InstanceFacts,
  details: StoredDetails,
  ablation: StoredAblation | null,
  symbolTriggers: SymbolTriggerCount,
): InstanceReport {
  return {
    task: f.taskId,
    arm: f.arm,
    underspecified: f.underspecified,
    run_id: f.runId,
    judge_run_id: details.judgement.runId,
    resolved: f.resolved,
    outcome: f.outcome,
    reason: details.reason,
    turns: f.turns,
    tokens: f.tokens,
    cost_usd: f.costUsd,
    decisions: f.decisions,
    gold_labels: f.goldLabels,
    triggered_first: f.triggeredFirst,
    selection: selectionScore(f.decisions, f.goldLabels, f.triggeredFirst),
    abstained: abstained(f),
    model_calls: f.modelCalls.map((c) => c.tool),
    edits: f.edits,
    fail_to_pass: details.judgement.failToPass,
    pass_to_pass: details.judgement.passToPass,
    suite_regressions: f.suiteRegressions ?? null,
    restored_tests: details.judgement.restored,
    tests: details.judgement.tests,
    wall_s: details.wallS,
    symbol_triggers: symbolTriggers,
    ablation: ablation
      ? ablation.entries.map((e) => ({
          index: e.index,
          tool: e.tool,
          run_id: e.runId,
          resolved: e.resolved,
          necessary: f.resolved && !e.diverged && !e.resolved,
          diverged: e.diverged,
          suppressed_calls: e.suppressedCalls,
        }))
      : null,
    ...(details.node === undefined ? {} : { node: details.node }),
  };
}

function notes(simulated: boolean, measured: Partial<Record<Arm, boolean>>): string[] {
  const out: string[] = [];
  if (simulated) {
    out.push(
      `Simulated model (sim:SEED): a seeded weak agent that knows each task's gold edits and errs at fixed rates (${Object.entries(
        SIM_RATES,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(
          ', ',
        )}). Its numbers show that the runner measures and reproduces differences; they are not evidence about a real model. Cost at the fixed sim price $${SIM_PRICE.promptPerMillion}/M prompt, $${SIM_PRICE.completionPerMillion}/M completion tokens; tokens are characters / 4.`,
    );
  }
  if (Object.values(measured).some((m) => m)) {
    out.push(
      'Call precision: each re-run suppresses one executed model call — and any identical call (same tool, same arguments) the model makes again after it, so asking again cannot undo the suppression. A call is necessary iff its re-run is no longer resolved.',
    );
  }
  if (Object.values(measured).some((m) => !m)) {
    out.push(
      'Call precision was not measured for every arm (it needs --ablation: one re-run per executed model call of each resolved instance). Its clause is not evaluable, and the decision rule adopts only on five clauses that hold: with every other clause holding the verdict is "undecided", never "adopt".',
    );
  }
  out.push(
    'Resolved = every FAIL_TO_PASS and PASS_TO_PASS test passes in the sandbox after the run (test files restored first), judged by the runner. Tokens and cost are the model calls of the run; triggers and sandbox time are not model spend.',
  );
  return out;
}

export function writeReport(outDir: string, report: AbReport): { json: string; md: string } {
  const json = join(outDir, 'report.json');
  const md = join(outDir, 'report.md');
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(md, renderMarkdown(report));
  return { json, md };
}
