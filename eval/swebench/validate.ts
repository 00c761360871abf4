// Whether an instance is sound: the environment builds; at base_commit with the test patch every
// FAIL_TO_PASS test fails; with the gold patch and the test patch every FAIL_TO_PASS and
// PASS_TO_PASS test passes (validity.ts). An instance that fails any of these measures the set, not
// the agent: `ab` skips it with this reason instead of counting it unresolved.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DebianRelease } from '../../runtime/env/plan/read/marker-env.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { instanceEnvironment, type EnvironmentContext, type InstanceEnvironment } from './environment.js';
import { applyTestPatch, runInstanceTests } from './grade.js';
import { baseTreeDir } from './base-tree.js';
import type { SweInstance } from './instance-file.js';
import { applyPatch, type RepoCache } from './repos.js';
import type { Phase } from './phase-progress.js';
import type { TestStatus } from './test-grade.js';
import { baseOnlyNote, baseProblem, goldProblem } from './validity.js';
import { unreachablePython } from './python-reach.js';
import { instanceSpec, type SpecUse } from './spec-tree.js';
import { shortfallLine } from '../../runtime/env/build/shortfall.js';

export interface Validation {
  instanceId: string;
  valid: boolean;
  /** Why it is invalid (null when valid). */
  reason: string | null;
  /** What a valid instance does unlike its labels (PASS_TO_PASS tests failing at base_commit). */
  note?: string | null;
  /** The validity rule it was judged by (validity.ts), set when it is kept. */
  rule?: number;
  environment: { status: string; key: string | null; image: string } | null;
  /**
   * What the environment gave up on that the tests may need (its shortfalls, optional ones left
   * out): an invalid instance with some ran where its declared versions were not to be had.
   */
  shortfalls?: string[];
  /** Per-test outcomes at base_commit + test patch, and with the gold patch too. */
  before: Record<string, TestStatus> | null;
  gold: Record<string, TestStatus> | null;
  seconds: number;
  /** The SWE-bench harness spec entry its environment was built from (null: none, its declarations). */
  spec?: SpecUse | null;
  /** The Debian release it ran on and why (`bookworm (made 2022-08-20, before Python 3.13)`). */
  debian?: string | null;
}

export interface ValidateContext extends EnvironmentContext {
  ledger: Ledger;
  repos: RepoCache;
  /** A directory of the command's own where the work trees are made (and removed). */
  workDir: string;
  /** Told as each phase of an instance starts (the progress line). */
  phase?: (name: Phase) => void;
}

export async function validateInstance(
  ctx: ValidateContext,
  instance: SweInstance,
  debian: DebianRelease | undefined,
): Promise<Validation> {
  const t0 = performance.now();
  const root = join(ctx.workDir, instance.instance_id);
  const result: Validation = {
    instanceId: instance.instance_id,
    valid: false,
    reason: null,
    environment: null,
    before: null,
    gold: null,
    seconds: 0,
  };
  let env: InstanceEnvironment | null = null;
  try {
    result.reason = unreachablePython(instance);
    if (result.reason) return result;
    ctx.phase?.('repository');
    const base = ctx.repos.checkout(instance, baseTreeDir(instance));
    ctx.phase?.('environment');
    result.spec = instanceSpec(instance, debian)?.use ?? null;
    env = await buildEnvironment(ctx, base, debian, instance);
    result.environment = { status: env.choice.status, key: env.choice.key, image: env.choice.image };
    result.spec = env.spec;
    result.shortfalls = env.choice.shortfalls.filter((f) => !f.optional).map(shortfallLine);
    const grading = { ledger: ctx.ledger, owner: ctx.owner, env };
    const before = copyTree(base, join(root, 'before'));
    applyTestPatch(instance, base, before);
    ctx.phase?.('tests before');
    const first = await runInstanceTests(grading, instance, before, 'validation at base_commit');
    result.before = first.tests;
    result.reason = baseProblem(instance, first);
    if (result.reason === null) {
      const fixed = copyTree(base, join(root, 'gold'));
      applyPatch(fixed, instance.patch, 'gold patch');
      applyTestPatch(instance, base, fixed);
      ctx.phase?.('tests after');
      const second = await runInstanceTests(grading, instance, fixed, 'validation with the gold patch');
      result.gold = second.tests;
      result.reason = goldProblem(instance, first, second);
      result.note = baseOnlyNote(instance, first, second);
    }
    result.valid = result.reason === null;
  } catch (error) {
    result.reason = (error as Error).message.split('\n')[0]!;
  } finally {
    await env?.sandbox.close();
    // The base tree stays where it is: `ab` runs the instance from it, in the same environment image.
    rmSync(root, { recursive: true, force: true });
    result.seconds = Math.round((performance.now() - t0) / 100) / 10;
  }
  return result;
}

async function buildEnvironment(
  ctx: ValidateContext,
  base: string,
  debian: DebianRelease | undefined,
  instance: SweInstance,
): Promise<InstanceEnvironment> {
  try {
    return await instanceEnvironment(ctx, base, debian, instance);
  } catch (error) {
    throw new Error(`the environment does not build: ${(error as Error).message.split('\n')[0]}`);
  }
}

function copyTree(from: string, to: string): string {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  return to;
}
