// Drafts one JavaScript/TypeScript instance from a fix commit, as eval/tasks/real-js was mined:
// the commit split into patch and test patch (split.ts), the environment of its parent built as
// `ab` builds it, the project's runner run on the test files with the test patch, then with the
// gold patch too, and every test the runs report named as the instance's log parser names it.
// FAIL_TO_PASS: passing with the fix and not before; PASS_TO_PASS: passing both times. The draft's
// problem statement is a placeholder: write it by hand from what the failing test showed.
//
//   node dist/eval/swebench/mine-js.js --repos DIR --repo owner/name --fix SHA --out FILE.jsonl
//     [--target 'FILES'] (default: the test patch's files) [--parser parse_log_…]
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openSession } from '../../core/session.js';
import { runTest, runTestTool } from '../../primitives/tools/run-test/tool.js';
import { getExecution } from '../../runtime/ledger/calls.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { instanceEnvironment, type InstanceEnvironment } from './environment.js';
import { cloneBundle } from './git.js';
import { applyTestPatch } from './grade.js';
import type { SweInstance } from './instance-file.js';
import { instanceId } from './instance.js';
import { jsOutcomes, jsParserOf, jsTestTarget } from './js-grading.js';
import { applyPatch, RepoCache } from './repos.js';
import { splitCommit } from './split.js';
import type { TestStatus } from './test-grade.js';

const { values } = parseArgs({
  options: {
    repos: { type: 'string' },
    repo: { type: 'string' },
    fix: { type: 'string' },
    out: { type: 'string' },
    target: { type: 'string' },
    parser: { type: 'string' },
  },
});

function draft(work: string): SweInstance {
  const [repos, repo, fix] = [resolve(values.repos!), values.repo!, values.fix!];
  const clone = join(work, 'clone');
  cloneBundle(join(repos, `${repo.split('/')[1]}.bundle`), clone, { checkout: false });
  const split = splitCommit(clone, fix);
  return {
    instance_id: instanceId(repo, fix),
    repo,
    base_commit: split.parent,
    problem_statement: 'draft: write it by hand',
    patch: split.patch,
    test_patch: split.testPatch,
    FAIL_TO_PASS: ['(mined)'],
    PASS_TO_PASS: [],
    version: '',
    environment_setup_commit: split.parent,
    created_at: split.createdAt,
    hints_text: '',
    ...(values.parser ? { log_parser: values.parser } : {}),
  };
}

interface Runs {
  session: Awaited<ReturnType<typeof openSession>>;
  env: InstanceEnvironment;
  target: string;
}

async function namedRun(runs: Runs, instance: SweInstance, tree: string): Promise<Map<string, TestStatus>> {
  const { session, env } = runs;
  const runId = createRun(session.ledger, {
    kind: runTestTool.name,
    repo: tree,
    owner: session.owner,
    issue: `mining ${instance.instance_id}`,
    config: {},
  });
  const { callId, result } = await runTest(
    {
      sandbox: env.sandbox,
      ledger: session.ledger,
      runId,
      owner: session.owner,
      origin: 'user',
      repoRoot: tree,
      testEnv: env.testEnv,
      language: env.language,
      ...(env.testRunner ? { testRunner: env.testRunner } : {}),
    },
    { target: runs.target, timeout: 300 },
  );
  process.stderr.write(`${tree}: exit ${result.exit_code}\n`);
  const stdout = getExecution(session.ledger, callId)?.stdout ?? '';
  return jsOutcomes(stdout, jsParserOf(instance, env.testRunner), env.testRunner);
}

async function main(): Promise<void> {
  if (!values.repos || !values.repo || !values.fix || !values.out)
    throw new Error('needs --repos DIR --repo owner/name --fix SHA --out FILE.jsonl');
  const work = mkdtempSync(join(tmpdir(), 'piper-mine-js-'));
  const session = await openSession({
    repo: work,
    ledger: join(work, 'ledger.db'),
    sandbox: { poolSize: 0 },
    log: () => {},
  });
  try {
    const instance = draft(work);
    const ctx = { ...session, runtime: session.sandbox.runtime ?? null, log: () => {} };
    const base = new RepoCache(resolve(values.repos), join(work, 'clones')).checkout(
      instance,
      join(work, 'base'),
    );
    const env = await instanceEnvironment(ctx, base, undefined, instance);
    const target = values.target ?? jsTestTarget(instance, jsParserOf(instance, env.testRunner));
    const runs = { session, env, target };
    const trees = ['before', 'gold'].map((name) => join(work, name));
    for (const tree of trees) cpSync(base, tree, { recursive: true });
    applyPatch(trees[1]!, instance.patch, 'gold patch');
    for (const tree of trees) applyTestPatch(instance, base, tree);
    const before = await namedRun(runs, instance, trees[0]!);
    const gold = await namedRun(runs, instance, trees[1]!);
    await env.sandbox.close();
    const passing = [...gold].filter(([, s]) => s === 'passed').map(([name]) => name);
    instance.FAIL_TO_PASS = passing.filter((name) => before.get(name) !== 'passed');
    instance.PASS_TO_PASS = passing.filter((name) => before.get(name) === 'passed');
    writeFileSync(values.out, `${JSON.stringify(instance)}\n`);
    process.stdout.write(
      `${instance.instance_id}: FAIL_TO_PASS ${instance.FAIL_TO_PASS.length}, PASS_TO_PASS ${instance.PASS_TO_PASS.length}\n`,
    );
  } finally {
    await session.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
