// `piper-agent ab` end to end with the real sandbox and the simulated model: both arms on three
// piperbench tasks, every measure and the decision in report.json; a second run reads every instance
// back from the ledger and rewrites the same report; an interrupted run (an instance that never got
// recorded) finishes that instance alone; and an ablation run on one task measures call precision.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { abCommand } from '../../eval/commands/ab.js';
import type { AbReport } from '../../eval/ab/report.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft } from '../helpers/sandbox.js';

const BENCH = join(packageRoot(), 'eval', 'tasks', 'piperbench');
// A plain bug, a two-edit task, and an underspecified one (asking is right).
const TASKS = ['pb-001-offbyone-page-count', 'pb-017-symbol-version-order', 'pb-020-under-split-remainder'];

async function ab(args: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  // The A/B protocol is what these tests check, not where packages come from: the task projects'
  // environments are built from Debian's packages, as before the index was reachable.
  vi.stubEnv('PIPER_SOURCES', 'debian');
  try {
    const code = await abCommand(args);
    return { code, stderr: lines.join('') };
  } finally {
    spy.mockRestore();
    vi.unstubAllEnvs();
  }
}

const readReport = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;

function fixRuns(out: string): number {
  const ledger = Ledger.open(join(out, 'ledger.db'));
  try {
    return (
      ledger.database.prepare(`SELECT COUNT(*) AS n FROM runs WHERE kind = 'fix'`).get() as { n: number }
    ).n;
  } finally {
    ledger.close();
  }
}

describe('piper-agent ab (real sandbox, sim:1)', () => {
  const out = mkdtempSync(join(tmpdir(), 'piper-ab-it-'));
  let first: AbReport;
  let firstJson: string;

  beforeAll(async () => {
    const { code, stderr } = await ab([
      '--bench',
      BENCH,
      '--model',
      'sim:1',
      '--out',
      out,
      '--tasks',
      TASKS.join(','),
      '--concurrency',
      '2',
    ]);
    expect(stderr).toMatch(/6 instance\(s\) run, 0 read back/);
    expect(code).toBe(0);
    firstJson = readFileSync(join(out, 'report.json'), 'utf8');
    first = JSON.parse(firstJson) as AbReport;
  }, 180_000);

  afterAll(async () => {
    await expectNoContainersLeft();
  });

  it('reports every measure for both arms, every instance, and the decision with its reasons', () => {
    expect(first).toMatchObject({
      schema: 'piper-agent/ab-report@1',
      model: 'sim:1',
      simulated: true,
      arms: ['policy', 'current'],
      tasks: TASKS,
      complete: true,
      missing: [],
    });
    for (const arm of ['policy', 'current'] as const) {
      const m = first.measures[arm]!;
      expect(m.instances).toBe(3);
      expect(m.resolveRate.of?.denominator).toBe(3);
      expect(m.costPerInstance.value).toBeGreaterThan(0);
      expect(m.tokensPerInstance.value).toBeGreaterThan(0);
      expect(m.selectionAccuracy.value).not.toBeNull();
      expect(m.correctAbstention.of).toEqual({ numerator: expect.any(Number), denominator: 1 });
      expect(m.callPrecision).toMatchObject({ value: null });
    }
    expect(first.instances).toHaveLength(6);
    for (const i of first.instances) {
      expect(i.fail_to_pass.total + i.pass_to_pass.total).toBeGreaterThan(0);
      expect(i.resolved).toBe(
        i.fail_to_pass.passed === i.fail_to_pass.total && i.pass_to_pass.passed === i.pass_to_pass.total,
      );
    }
    expect(first.decision!.clauses.map((c) => c.name)).toEqual([
      'resolve',
      'cost',
      'tokens',
      'call_precision',
      'selection_accuracy',
    ]);
    expect(first.decision!.clauses.find((c) => c.name === 'call_precision')!.holds).toBeNull();
    expect(first.decision!.adopt).toBe(false); // precision is not evaluable without --ablation
    expect(first.decision!.reason.length).toBeGreaterThan(20);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(
      /## Measures[\s\S]*## Decision[\s\S]*## Instances/,
    );
  });

  it('counts the symbol triggers per arm and per instance, with those that found nothing', () => {
    // The baseline arm has no triggers; the policy arm's fire on the issues' dotted names.
    expect(first.symbol_triggers.current).toEqual({ instances: 3, fired: 0, zero_matches: 0 });
    const policy = first.symbol_triggers.policy!;
    expect(policy.instances).toBe(3);
    expect(policy.fired).toBeGreaterThan(0);
    const mine = first.instances.filter((i) => i.arm === 'policy');
    expect(policy.fired).toBe(mine.reduce((s, i) => s + i.symbol_triggers.fired, 0));
    expect(policy.zero_matches).toBe(mine.reduce((s, i) => s + i.symbol_triggers.zero_matches, 0));
    for (const i of first.instances)
      expect(i.symbol_triggers.zero_match_queries).toHaveLength(i.symbol_triggers.zero_matches);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(
      new RegExp(
        `## Symbol triggers[\\s\\S]*\\| policy +\\| 3 +\\| ${policy.fired} +\\| ${policy.zero_matches} +\\|`,
      ),
    );
  });

  it('judges by the tests, not by the agent: the underspecified task that asked is unresolved', () => {
    const asked = first.instances.filter(
      (i) => i.task === 'pb-020-under-split-remainder' && i.outcome === 'ask_user',
    );
    expect(asked.length).toBeGreaterThan(0); // sim:1 asks on this task in both arms
    for (const i of asked) expect(i.resolved).toBe(false);
  });

  it('a second run reads every instance back from the ledger and writes the same report', async () => {
    const runs = fixRuns(out);
    const { code, stderr } = await ab([
      '--bench',
      BENCH,
      '--model',
      'sim:1',
      '--out',
      out,
      '--tasks',
      TASKS.join(','),
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/0 instance\(s\) run, 6 read back/);
    expect(fixRuns(out)).toBe(runs);
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe(firstJson);
  });

  it('after an interruption only the unrecorded instance runs again, and the report is the same', async () => {
    // An instance whose row was never written (the process died before its judgement was recorded).
    const ledger = Ledger.open(join(out, 'ledger.db'));
    ledger.database.prepare(`DELETE FROM ab_instances WHERE arm = 'current' AND task_id = ?`).run(TASKS[0]);
    ledger.close();
    const runs = fixRuns(out);
    const { code, stderr } = await ab([
      '--bench',
      BENCH,
      '--model',
      'sim:1',
      '--out',
      out,
      '--tasks',
      TASKS.join(','),
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/1 instance\(s\) run, 5 read back/);
    expect(fixRuns(out)).toBe(runs + 1);
    const again = readReport(out);
    const stable = (r: AbReport) => ({
      ...r,
      instances: r.instances.map((i) => ({ ...i, run_id: '', judge_run_id: '', wall_s: 0 })),
    });
    expect(stable(again)).toEqual(stable(first));
  }, 120_000);

  it('--ablation on one task measures call precision from one re-run per executed model call', async () => {
    const ablationOut = mkdtempSync(join(tmpdir(), 'piper-ab-abl-'));
    const { code } = await ab([
      '--bench',
      BENCH,
      '--model',
      'sim:1',
      '--out',
      ablationOut,
      '--tasks',
      TASKS[0]!,
      '--ablation',
      '--concurrency',
      '2',
    ]);
    expect(code).toBe(0);
    const r = readReport(ablationOut);
    for (const i of r.instances) {
      expect(i.resolved).toBe(true);
      expect(i.ablation!.map((a) => a.index)).toEqual(i.model_calls.map((_, k) => k));
      expect(i.ablation!.every((a) => !a.diverged)).toBe(true); // a deterministic model replays its run
    }
    for (const arm of ['policy', 'current'] as const) {
      const i = r.instances.find((x) => x.arm === arm)!;
      const necessary = i.ablation!.filter((a) => a.necessary).length;
      expect(r.measures[arm]!.callPrecision).toMatchObject({
        value: necessary / i.model_calls.length,
        of: { numerator: necessary, denominator: i.model_calls.length },
      });
      // Without its edit the bug stays: the edit that fixed it is a necessary call.
      expect(i.ablation!.some((a) => a.tool === 'edit_entity' && a.necessary)).toBe(true);
    }
    expect(r.decision!.clauses.every((c) => c.holds !== null)).toBe(true);
    expect(readFileSync(join(ablationOut, 'report.md'), 'utf8')).toMatch(/## Ablation/);
  }, 300_000);
});
