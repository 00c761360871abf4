// The runner's judgement of an agent's run on a SWE-bench instance, never the agent's own: in the
// instance's environment (built from the untouched base tree, so an agent that edited the
// dependency files cannot change what it is graded in), the test files are put back, the test
// patch applied and the FAIL_TO_PASS and PASS_TO_PASS tests run (grade.ts). A test patch that no
// longer applies to the agent's tree grades as unresolved, with git's reason.
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import type { Judgement, JudgeContext } from '../ab/judge.js';
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { instanceEnvironment } from './environment.js';
import { applyTestPatch, runInstanceTests } from './grade.js';
import type { SweTask } from './swe-task.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';

export interface SweJudgeContext extends JudgeContext {
  engine: DockerEngine;
  runtime: string | null;
  log(line: string): void;
}

export async function judgeSweRun(
  ctx: SweJudgeContext,
  task: SweTask,
  workTree: string,
  agentRunId: string,
): Promise<Judgement> {
  const { instance, debian } = task.swe;
  const env = await instanceEnvironment(ctx, task.repoDir, debian, instance);
  try {
    let restored: string[];
    try {
      restored = applyTestPatch(instance, task.repoDir, workTree);
    } catch (error) {
      return unapplied(ctx, task, agentRunId, (error as Error).message);
    }
    const run = await runInstanceTests(
      { ledger: ctx.ledger, owner: ctx.owner, env },
      instance,
      workTree,
      `A/B judgement after run ${agentRunId}`,
    );
    return {
      resolved: run.resolved,
      runId: run.runId,
      callId: run.callId,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      tests: run.tests,
      failToPass: run.failToPass,
      passToPass: run.passToPass,
      restored,
    };
  } finally {
    await env.sandbox.close();
  }
}

/** The judgement when the test patch does not apply: a judge run that says why, every test missing. */
function unapplied(ctx: SweJudgeContext, task: SweTask, agentRunId: string, why: string): Judgement {
  const ids = [...task.fail_to_pass, ...task.pass_to_pass];
  const runId = createRun(ctx.ledger, {
    kind: runTestTool.name,
    repo: task.repoDir,
    owner: ctx.owner,
    issue: `A/B judgement of ${task.id} after run ${agentRunId}`,
    config: { swebench: { instance: task.id, of: agentRunId, tests: ids } },
  });
  endRun(ctx.ledger, runId, 'unresolved', why);
  return {
    resolved: false,
    runId,
    callId: '',
    exitCode: -1,
    timedOut: false,
    tests: Object.fromEntries(ids.map((id) => [id, 'missing' as const])),
    failToPass: { passed: 0, total: task.fail_to_pass.length },
    passToPass: { passed: 0, total: task.pass_to_pass.length },
    restored: [],
  };
}
