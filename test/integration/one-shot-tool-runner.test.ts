// The one-shot commands run their call the agent's way (core/one-shot/): a `run-test` and a
// `tool run_test` of the target the agent's model ran are recorded exactly as the agent's call is
// — the same args (the environment's run variables among them), the same terminal status, an
// executions row in the same image, environment and limits — and each command chooses its
// environment once, the target without one coming from that choice's plan.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

interface CallRow {
  id: string;
  run_id: string;
  origin: string;
  tool: string;
  args: string;
  verdict: string;
  status: string;
  status_reason: string | null;
  container_id: string | null;
  image: string;
  env_key: string | null;
  limits: string;
}

const RECIPE_TEST = 'python -m pytest tests/test_words.py -q';

function readLedger(repo: string) {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    const db = ledger.database;
    const calls = db
      .prepare(
        `SELECT c.id, c.run_id, c.origin, c.tool, c.args, c.verdict, c.status, c.status_reason, c.container_id,
                e.image, e.env_key, e.limits
           FROM calls c JOIN executions e ON e.call_id = c.id WHERE c.tool = 'run_test' ORDER BY c.rowid`,
      )
      .all() as CallRow[];
    const environments = db
      .prepare('SELECT status, image, plan FROM environments ORDER BY rowid')
      .all() as Array<{
      status: string;
      image: string;
      plan: string;
    }>;
    return { calls, environments };
  } finally {
    ledger.close();
  }
}

/** What a call's record says of how it ran, without the ids and the run it belongs to. */
function howItRan(row: CallRow) {
  const { args, verdict, status, status_reason, image, env_key, limits } = row;
  return { args: JSON.parse(args) as unknown, verdict, status, status_reason, image, env_key, limits };
}

describe("one-shot calls through the agent's tool runner (real engine, real CLI)", () => {
  it("records run-test's and tool's run_test as the agent's, each command choosing its environment once", async () => {
    const repo = sampleRepo();
    mkdirSync(join(repo, '.piper'), { recursive: true });
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), `test = "${RECIPE_TEST}"\n`);

    const fix = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'));
    expect(fix.code, fix.stderr).toBe(0);
    const oneShot = await runCli(['run-test', 'tests/', '--repo', repo, '--json']);
    expect(oneShot.code, oneShot.stderr).toBe(0);
    const asModel = await runCli(['tool', 'run_test', '{"target": "tests/"}', '--repo', repo]);
    expect(asModel.code, asModel.stderr).toBe(0);
    const projects = await runCli(['run-test', '--repo', repo, '--json']);
    expect(projects.code, projects.stderr).toBe(0);

    const { calls, environments } = readLedger(repo);
    const callOf = (id: string) => calls.find((c) => c.id === id);
    const fixRun = (JSON.parse(fix.stdout) as { run_id: string }).run_id;
    // The model's own call (the regression gate's suite runs are calls of runs of their own).
    const agents = calls.find((c) => c.run_id === fixRun && c.origin === 'model');
    const byRunTest = callOf((JSON.parse(oneShot.stdout) as { call_id: string }).call_id);
    const byTool = callOf(/── run r-\S+ · call (c-\S+)/.exec(asModel.stderr)![1]!);
    const byProject = callOf((JSON.parse(projects.stdout) as { call_id: string }).call_id);
    expect(agents && byRunTest && byTool && byProject).toBeTruthy();
    // The environment's run variables reach every one of them, as the agent's workspace sets them.
    expect(JSON.parse(agents!.args)).toMatchObject({
      target: 'tests/',
      timeout: 120,
      env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' },
    });
    expect(howItRan(byRunTest!)).toEqual(howItRan(agents!));
    expect(howItRan(byTool!)).toEqual(howItRan(agents!));
    expect([agents!.origin, byRunTest!.origin, byTool!.origin]).toEqual(['model', 'user', 'model']);
    for (const row of [agents!, byRunTest!, byTool!, byProject!])
      expect(row.container_id).toMatch(/^[0-9a-f]{64}$/);

    // One environment choice per command (fix, run-test, tool, run-test), all the same one.
    expect(environments).toHaveLength(4);
    expect(new Set(environments.map((e) => `${e.status} ${e.image}`)).size).toBe(1);
    // Without TARGET, run-test runs the test command of the plan its environment was chosen with.
    const plan = JSON.parse(environments.at(-1)!.plan) as { testCommand: string; testCommandFrom: string };
    const result = JSON.parse(projects.stdout) as { target: string; from: string; passed: boolean };
    expect(plan.testCommand).toBe(RECIPE_TEST);
    expect(result).toMatchObject({ target: RECIPE_TEST, from: plan.testCommandFrom, passed: true });
    expect(JSON.parse(byProject!.args)).toMatchObject({ target: RECIPE_TEST });
  });
});
