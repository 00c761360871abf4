// The runner's judgement of one run, never the agent's: after the agent is done, every FAIL_TO_PASS
// and PASS_TO_PASS test runs in a fresh sandbox on the instance's copy, and the instance is resolved
// iff pytest exits 0 and each of those tests is reported PASSED. The test files (and conftest.py
// files) are first put back as the task gives them, so an agent that edited a test cannot pass it
// by editing it. The judgement is a ledger run of its own (kind run_test) beside the agent's run.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { runTest, runTestTool } from '../../primitives/tools/run-test/tool.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { filesOf, type Task } from './tasks.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';
import { getExecution } from '../../runtime/ledger/calls.js';

type TestStatus = 'passed' | 'failed' | 'error' | 'skipped' | 'missing';

export interface Judgement {
  resolved: boolean;
  /** The judge's own ledger run and its run_test call. */
  runId: string;
  callId: string;
  exitCode: number;
  timedOut: boolean;
  tests: Record<string, TestStatus>;
  failToPass: { passed: number; total: number };
  passToPass: { passed: number; total: number };
  /** Test files the agent had changed, put back before judging. */
  restored: string[];
}

export interface JudgeContext {
  sandbox: Sandbox;
  ledger: Ledger;
  owner: string;
}

const JUDGE_TIMEOUT_S = 300;

export async function judgeRun(
  ctx: JudgeContext,
  task: Task,
  repoDir: string,
  agentRunId: string,
): Promise<Judgement> {
  const restored = restoreTests(task, repoDir);
  const ids = [...task.fail_to_pass, ...task.pass_to_pass];
  const runId = createRun(ctx.ledger, {
    kind: runTestTool.name,
    repo: repoDir,
    owner: ctx.owner,
    issue: `A/B judgement of ${task.id} after run ${agentRunId}`,
    config: { ab_judge: { of: agentRunId, task: task.id, tests: ids, restored } },
  });
  // -rA lists every test with its outcome; the cache plugin would only write into the copy.
  const { callId, result } = await runTest(
    { sandbox: ctx.sandbox, ledger: ctx.ledger, runId, owner: ctx.owner, origin: 'user', repoRoot: repoDir },
    { target: `${ids.join(' ')} -rA -p no:cacheprovider`, timeout: JUDGE_TIMEOUT_S },
  );
  const stdout = getExecution(ctx.ledger, callId)?.stdout ?? '';
  const reported = reportedStatuses(stdout);
  const tests: Record<string, TestStatus> = {};
  for (const id of ids) tests[id] = reported.get(id) ?? 'missing';
  const count = (list: readonly string[]) => ({
    passed: list.filter((id) => tests[id] === 'passed').length,
    total: list.length,
  });
  const resolved = result.exit_code === 0 && !result.timed_out && ids.every((id) => tests[id] === 'passed');
  endRun(
    ctx.ledger,
    runId,
    resolved ? 'resolved' : 'unresolved',
    resolved ? 'every FAIL_TO_PASS and PASS_TO_PASS test passed' : `pytest exit ${result.exit_code}`,
  );
  return {
    resolved,
    runId,
    callId,
    exitCode: result.exit_code,
    timedOut: result.timed_out,
    tests,
    failToPass: count(task.fail_to_pass),
    passToPass: count(task.pass_to_pass),
    restored,
  };
}

/** `PASSED tests/x.py::t`, `FAILED tests/x.py::t - AssertionError` … from pytest's -rA summary. */
function reportedStatuses(stdout: string): Map<string, TestStatus> {
  const out = new Map<string, TestStatus>();
  const words: Record<string, TestStatus> = {
    PASSED: 'passed',
    FAILED: 'failed',
    ERROR: 'error',
    SKIPPED: 'skipped',
    XFAIL: 'failed',
    XPASS: 'failed',
  };
  for (const match of stdout.matchAll(/^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)/gm)) {
    const id = match[2]!;
    // A test reported twice (a failing teardown after a pass) keeps its worst status.
    if (out.get(id) !== 'passed' && out.has(id)) continue;
    out.set(id, words[match[1]!]!);
  }
  return out;
}

/** Puts the task's test files and conftest.py files back; returns the ones that had changed. */
function restoreTests(task: Task, repoDir: string): string[] {
  const files = new Set([...task.fail_to_pass, ...task.pass_to_pass].map((id) => id.split('::')[0]!));
  for (const f of filesOf(task.repoDir)) if (f === 'conftest.py' || f.endsWith('/conftest.py')) files.add(f);
  const changed: string[] = [];
  for (const f of [...files].sort()) {
    const original = join(task.repoDir, f);
    const copy = join(repoDir, f);
    if (!existsSync(original)) continue;
    if (existsSync(copy) && readFileSync(copy).equals(readFileSync(original))) continue;
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(original, copy);
    changed.push(f);
  }
  return changed;
}
