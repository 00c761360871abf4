// One A/B instance: one arm of the agent on one task, on a fresh copy of the task's repository,
// non-interactive, with the task's repro as the test target and the shared ledger; then the runner's
// judgement in the sandbox. With `suppress`, the same with one executed model call suppressed; a gate
// variant (variants.ts) runs the policy arm with that gate switched off.
import type { RunResult } from '../../policy/events.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { ChatModel } from '../../runtime/model/types.js';
import type { Config } from '../../core/config.js';
import { runFix } from '../../core/fix/run-fix.js';
import { judgeSweRun, type SweJudgeContext } from '../swebench/judge.js';
import { isSweTask } from '../swebench/swe-task.js';
import { judgeRun, type JudgeContext, type Judgement } from './judge.js';
import { freshCopy } from './repo-copy.js';
import { suppressNth, type Suppression } from './suppress.js';
import type { Task } from './tasks.js';
import type { Variant } from './variants.js';

export interface InstanceContext {
  /** OUT/ledger.db: every agent run and every judgement of the A/B goes into this one file. */
  ledgerPath: string;
  /** The runner's own connection to it. */
  ledger: Ledger;
  judge: JudgeContext;
  /** The judge of SWE-bench instances: it builds or reuses each instance's environment. */
  sweJudge: SweJudgeContext;
  config: Config;
  /** The model for a task: the same client for every task, or the simulated model playing that task. */
  modelFor(task: Task): ChatModel;
  log(line: string): void;
}

export interface InstanceRun {
  result: RunResult;
  judgement: Judgement;
  wallS: number;
  suppression: Suppression | null;
}

export async function runInstance(
  ctx: InstanceContext,
  task: Task,
  variant: Variant,
  suppress?: number,
): Promise<InstanceRun> {
  const t0 = performance.now();
  const { arm, key } = variant;
  const copy = freshCopy(task.repoDir, `${task.id}-${key}`);
  try {
    let runId: string | undefined;
    const ablation =
      suppress === undefined ? null : suppressNth(suppress, ctx.ledger, ctx.judge.owner, () => runId);
    const result = await runFix({
      issue: task.issue,
      repo: copy.dir,
      config: {
        ...ctx.config,
        policy: arm,
        ledger: ctx.ledgerPath,
        ...(isSweTask(task) ? { image: task.swe.image } : {}),
      },
      // A SWE-bench instance gives no test target (the agent's is the project's own), and its
      // sandboxes run in the instance's environment image as it is.
      reproTarget: isSweTask(task) ? null : task.repro,
      emit: (event) => {
        if (event.type === 'init') runId = event.run_id;
      },
      log: (line) => ctx.log(`${task.id} ${key}: ${line}`),
      model: ctx.modelFor(task),
      ...(ablation ? { wrapTools: ablation.wrap } : {}),
      ...(variant.loop ? { loop: variant.loop } : {}),
    });
    const judgement = isSweTask(task)
      ? await judgeSweRun(ctx.sweJudge, task, copy.dir, result.run_id)
      : await judgeRun(ctx.judge, task, copy.dir, result.run_id);
    return {
      result,
      judgement,
      wallS: (performance.now() - t0) / 1000,
      suppression: ablation?.suppression ?? null,
    };
  } finally {
    copy.remove();
  }
}
