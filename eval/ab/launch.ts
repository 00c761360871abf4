// What `piper-agent ab` does once its flags are read: picks the model (one shared endpoint model, or
// a simulated model per task), runs the A/B (runner.ts), writes the report and says on stderr what
// happened. eval/commands/ab.ts only turns flags into an AbRequest.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimSpec, SimModel } from '../sim/sim-model.js';
import type { GateName } from './gates.js';
import { tagPulledSandboxImage, JOB_SANDBOX_IMAGE_ENV } from '../cluster/job-prepare.js';
import { resultBlockOf } from '../cluster/job-result.js';
import { resolveModel } from '../../runtime/model/resolve.js';
import { loadConfig } from '../../core/config.js';
import { EXIT } from '../../core/exit-codes.js';
import { embedRetrievalConfigured } from '../../core/fix/run-fix.js';
import { Progress } from './progress.js';
import { writeReport } from './report.js';
import { runAb, type AbOptions, type AbOutcome } from './runner.js';
import { simTaskOf } from './tasks.js';

/** The flags of one `ab`, as AbOptions names them; the model as given, the out dir absolute. */
export interface AbRequest extends Pick<
  AbOptions,
  | 'benchDir'
  | 'model'
  | 'arms'
  | 'taskIds'
  | 'outDir'
  | 'concurrency'
  | 'ablation'
  | 'repos'
  | 'debian'
  | 'sample'
> {
  gateAblation: GateName[];
  /** One instance as a Swarm job (eval/cluster/): print its result block on stdout at the end. */
  resultBlock?: boolean;
}

/** Runs the A/B of `request` and writes OUT/report.{json,md}; the exit status (1: an instance failed). */
export async function launchAb(request: AbRequest): Promise<number> {
  const { config } = loadConfig({ repo: process.cwd() });
  const seed = parseSimSpec(request.model);
  const shared =
    seed === null
      ? resolveModel(request.model, {
          config: { baseUrl: config.baseUrl, apiKey: config.apiKey, prices: config.prices },
        })
      : null;
  mkdirSync(request.outDir, { recursive: true });
  const pulledSandbox = process.env[JOB_SANDBOX_IMAGE_ENV];
  if (request.resultBlock && pulledSandbox) await tagPulledSandboxImage(pulledSandbox);
  const outcome = await runAb({
    ...request,
    embedConfigured: embedRetrievalConfigured(config),
    config: { ...config, model: request.model },
    modelFor: (task) => shared ?? new SimModel(seed!, simTaskOf(task)),
    progress: (total) => new Progress(process.stderr, total),
    onReport: (report) => writeReport(request.outDir, report),
    log: runsLog(request.outDir),
  });
  const files = writeReport(request.outDir, outcome.report);
  process.stderr.write(summary(outcome, files));
  if (request.resultBlock) printResultBlock(request);
  return outcome.failures.length > 0 ? EXIT.failure : EXIT.ok;
}

/** The one instance's result block, for the `ab --cluster swarm` that started this job. */
function printResultBlock(request: AbRequest): void {
  const key = { model: request.model, arm: request.arms[0]!, taskId: request.taskIds![0]! };
  const block = resultBlockOf(join(request.outDir, 'ledger.db'), key);
  if (block) process.stdout.write(block);
}

/** What ran, the decision, each ablated gate's verdict, where the report is, and every failure. */
export function summary(outcome: AbOutcome, files: { md: string; json: string }): string {
  const r = outcome.report;
  return (
    `${outcome.ran} instance(s) run, ${outcome.resumed} read back from the ledger, ${outcome.ablationRuns} ablation re-run(s), in ${outcome.wallS.toFixed(1)} s\n` +
    (r.decision
      ? `decision: ${r.decision.verdict} — ${r.decision.reason}\n`
      : `decision: ${r.decision_note}\n`) +
    (r.ablation_gates?.gates ?? []).map((g) => `gate ${g.gate}: ${g.verdict} — ${g.reason}\n`).join('') +
    `report: ${files.md}\n        ${files.json}\n` +
    outcome.failures
      .map(
        (f) =>
          `failed: ${f.arm} ${f.task}${f.suppress === null ? '' : ` without call ${f.suppress}`}: ${f.error}\n`,
      )
      .join('')
  );
}

/** runFix's informational lines (start-up sweeps and the like) go to OUT/runs.log, not over the progress bar. */
function runsLog(outDir: string): (line: string) => void {
  return (line) => {
    try {
      appendFileSync(join(outDir, 'runs.log'), `${new Date().toISOString()} ${line}\n`);
    } catch {
      // The log is a convenience; a full disk shows up in the ledger writes, with a proper error.
    }
  };
}
