// Grading one work tree as the public SWE-bench harness does: the files the test patch touches are
// put back as base_commit has them (an agent that edited a test cannot pass it by editing it), the
// test patch is applied, and exactly the FAIL_TO_PASS and PASS_TO_PASS tests run in the sandbox
// (run_test's machinery: the hardened container, the environment image, the project's test
// variables). The test run is a ledger run of its own (kind run_test) with the outcome per test.
import { runTest, runTestTool } from '../../primitives/tools/run-test/tool.js';
import { copyFileSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { InstanceEnvironment } from './environment.js';
import type { SweInstance } from './instance-file.js';
import { applyPatch, patchedFiles } from './repos.js';
import { testCommand } from './test-command.js';
import { grade, parseOutcomes, type Graded, type TestStatus } from './test-grade.js';
import { jsOutcomes, jsParserOf, jsTestTarget } from './js-grading.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';
import { getExecution } from '../../runtime/ledger/calls.js';

const GRADE_TIMEOUT_S = 900;
/**
 * The harness runs an instance's tests with the machine's cores, and some suites read the quota
 * (pylint's parallel-jobs tests skip with "Need 2 or more cores" under one): grading gets the
 * machine's cores up to 4, still a bounded quota.
 */
const GRADE_CPUS = Math.min(availableParallelism(), 4);

export interface TestRun extends Graded {
  runId: string;
  callId: string;
  exitCode: number;
  timedOut: boolean;
}

export interface GradeContext {
  ledger: Ledger;
  owner: string;
  env: InstanceEnvironment;
}

/**
 * Puts back every file the test patch touches as `baseTree` (the untouched checkout of base_commit)
 * has it, then applies the test patch to `workTree`. Returns the files that had been changed.
 */
export function applyTestPatch(instance: SweInstance, baseTree: string, workTree: string): string[] {
  const restored: string[] = [];
  for (const file of patchedFiles(instance.test_patch)) {
    const original = join(baseTree, file);
    const copy = join(workTree, file);
    const had = isFile(original);
    if (had ? sameFile(original, copy) : !exists(copy)) continue;
    restored.push(file);
    rmSync(copy, { force: true, recursive: true });
    if (had) {
      mkdirSync(dirname(copy), { recursive: true });
      copyFileSync(original, copy);
    }
  }
  applyPatch(workTree, instance.test_patch, 'test patch');
  return restored;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function sameFile(a: string, b: string): boolean {
  return isFile(b) && readFileSync(a).equals(readFileSync(b));
}

interface Grading {
  target: string;
  read(stdout: string): Map<string, TestStatus>;
  /** Names are looked up exactly (a pytest id also by its first word: test-grade.ts). */
  exact: boolean;
}

/** How an instance's tests run and are read: pytest's (and its kin's) ids, or a JavaScript runner's. */
function gradingOf(instance: SweInstance, env: InstanceEnvironment): Grading {
  if (env.language === 'javascript') {
    const parser = jsParserOf(instance, env.testRunner);
    return {
      target: jsTestTarget(instance, parser),
      read: (stdout) => jsOutcomes(stdout, parser, env.testRunner),
      exact: true,
    };
  }
  const command = testCommand(instance);
  const ids = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS];
  return {
    target: command.target,
    read: (stdout) => parseOutcomes(stdout, command.runner, ids),
    exact: false,
  };
}

/** Runs the instance's FAIL_TO_PASS and PASS_TO_PASS tests on `workTree` and grades them. */
export async function runInstanceTests(
  ctx: GradeContext,
  instance: SweInstance,
  workTree: string,
  label: string,
): Promise<TestRun> {
  const ids = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS];
  const how = gradingOf(instance, ctx.env);
  const runId = createRun(ctx.ledger, {
    kind: runTestTool.name,
    repo: workTree,
    owner: ctx.owner,
    issue: `${label} of ${instance.instance_id}`,
    config: { swebench: { instance: instance.instance_id, of: label, tests: ids } },
  });
  const { callId, result } = await runTest(
    {
      sandbox: ctx.env.sandbox,
      ledger: ctx.ledger,
      runId,
      owner: ctx.owner,
      origin: 'user',
      repoRoot: workTree,
      testEnv: ctx.env.testEnv,
      cpus: GRADE_CPUS,
      language: ctx.env.language,
      ...(ctx.env.testRunner ? { testRunner: ctx.env.testRunner } : {}),
    },
    { target: how.target, timeout: GRADE_TIMEOUT_S },
  );
  const stdout = getExecution(ctx.ledger, callId)?.stdout ?? '';
  const graded = grade(how.read(stdout), instance.FAIL_TO_PASS, instance.PASS_TO_PASS, how.exact);
  const resolved = graded.resolved && !result.timed_out;
  endRun(
    ctx.ledger,
    runId,
    resolved ? 'resolved' : 'unresolved',
    `FAIL_TO_PASS ${graded.failToPass.passed}/${graded.failToPass.total}, PASS_TO_PASS ${graded.passToPass.passed}/${graded.passToPass.total}`,
  );
  return {
    ...graded,
    resolved,
    runId,
    callId,
    exitCode: result.exit_code,
    timedOut: result.timed_out,
  };
}
