// The committed real task set (eval/tasks/real) works end to end, so an A/B over it measures the
// agent rather than a broken instance: every instance passes
// `ab validate` (the real CLI builds each project's environments as `ab` builds them and runs each
// instance's FAIL_TO_PASS and PASS_TO_PASS tests in the sandbox at base_commit with the test patch,
// then with the gold patch too). Then the §9 sample: `ab --sample 20 --seed 1 --model sim:1` runs
// end to end into the same out directory (reading validation.json instead of validating again):
// both arms on the 20 instances the seed draws, graded by their tests, each test's outcome in
// report.json, and the report carries every measure of the spec's §9 (resolve rate, cost and tokens
// per instance, call precision, tool-selection accuracy against the committed hand-checked
// gold-labels.json, and the correct-abstention rate). The same command again draws the same 20 and
// reads them all back. Minutes of environment builds and runs, so it is in `make test-eval` (CI
// runs it after `make test`). The format checks that need no sandbox are test/integration/real-set.test.ts.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
import type { Measure } from '../../eval/ab/metrics.js';
import { readGoldLabelFile } from '../../eval/swebench/gold-label-file.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';
import { sampleOrder } from '../../eval/swebench/sample.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const SET = join(packageRoot(), 'eval', 'tasks', 'real');
const BENCH = join(SET, 'instances.jsonl');
const instances = readFileSync(BENCH, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as { instance_id: string; FAIL_TO_PASS: string; PASS_TO_PASS: string });
const ids = instances.map((i) => i.instance_id);
const SET_FLAGS = ['--bench', BENCH, '--repos', join(SET, 'repos')];
const SAMPLE_FLAGS = ['--sample', '20', '--seed', '1', '--model', 'sim:1'];
/** Every instance is valid (the first test says so), so the draw is the seed's first 20. */
const drawOf = (seed: string) =>
  sampleOrder(loadInstances(BENCH), seed)
    .slice(0, 20)
    .map((i) => i.instance_id);

describe('the committed real task set (real environments, real pytest)', () => {
  const out = mkdtempSync(join(tmpdir(), 'piper-real-set-'));
  let validate: CliResult;
  let ab: CliResult;
  let again: CliResult;
  let report: AbReport;
  let againReport: AbReport;
  const readReport = () => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;

  beforeAll(async () => {
    validate = await runCli(['ab', 'validate', ...SET_FLAGS, '--out', out]);
    ab = await runCli(['ab', ...SET_FLAGS, ...SAMPLE_FLAGS, '--out', out, '--concurrency', '2']);
    report = readReport();
    again = await runCli(['ab', ...SET_FLAGS, ...SAMPLE_FLAGS, '--out', out]);
    againReport = readReport();
  }, 3_600_000);

  it('ab validate calls every instance valid, one line each, and exits 0', () => {
    const lines = validate.stdout.trim().split('\n');
    // The whole output on failure: which instance is invalid and why.
    expect(
      lines.filter((l) => !l.startsWith('valid ')),
      validate.stdout + validate.stderr.slice(-2000),
    ).toEqual([
      expect.stringMatching(new RegExp(`^${ids.length} of ${ids.length} instance\\(s\\) valid, 0 invalid`)),
    ]);
    expect(lines.slice(0, -1).map((l) => l.split(/\s+/)[1])).toEqual(ids);
    expect(validate.code).toBe(0);
  });

  it('ab --sample 20 --seed 1 runs both arms on the 20 drawn instances, graded test by test, none invalid', () => {
    expect(ab.code, ab.stderr.slice(-3000)).toBe(0);
    expect(ab.stderr).toMatch(/^40 instance\(s\) run, 0 read back/m);
    expect(report.tasks).toEqual(drawOf('1'));
    expect(report).toMatchObject({ complete: true, invalid: [], arms: ['policy', 'current'] });
    expect(report.instances).toHaveLength(2 * 20);
    const byId = new Map(instances.map((i) => [i.instance_id, i]));
    for (const i of report.instances) {
      const instance = byId.get(i.task)!;
      const tests = [...JSON.parse(instance.FAIL_TO_PASS), ...JSON.parse(instance.PASS_TO_PASS)] as string[];
      expect(Object.keys(i.tests).sort()).toEqual(tests.sort());
      expect(i.resolved).toBe(Object.values(i.tests).every((s) => s === 'passed'));
    }
  });

  it('draws the same 20 for the same seed (all read back) and another 20 for another seed', () => {
    expect(again.code, again.stderr.slice(-3000)).toBe(0);
    expect(again.stderr).toMatch(/^0 instance\(s\) run, 40 read back/m);
    expect(againReport.tasks).toEqual(report.tasks);
    expect(againReport.measures).toEqual(report.measures);
    expect(new Set(drawOf('2'))).not.toEqual(new Set(report.tasks));
  });

  it('reports every measure of §9 for both arms, selection accuracy against the hand-checked labels', () => {
    const number = (m: Measure | undefined) => {
      expect(m?.value, JSON.stringify(m)).toEqual(expect.any(Number));
      expect(Number.isFinite(m!.value)).toBe(true);
    };
    for (const arm of ['policy', 'current'] as const) {
      const m = report.measures[arm]!;
      expect(m.instances).toBe(20);
      number(m.resolveRate);
      number(m.costPerInstance); // the sim model has a fixed price
      number(m.tokensPerInstance);
      number(m.selectionAccuracy);
      expect(m.selectionAccuracy.of!.denominator).toBeGreaterThan(0);
      // Needs an ablation of every resolved instance (--ablation, one re-run per call): without it,
      // present, null, and saying why; with no resolved instance it is defined (0 necessary calls).
      if (m.resolveRate.of!.numerator > 0)
        expect(m.callPrecision).toMatchObject({ value: null, note: expect.stringMatching(/--ablation/) });
      else number(m.callPrecision);
      // No instance of the set is marked under-specified: nothing to abstain on, so null with why.
      expect(m.correctAbstention).toMatchObject({
        value: null,
        note: expect.stringMatching(/underspecified/),
      });
    }
    expect(report.decision?.clauses.length).toBeGreaterThan(0);
    // Every instance is scored against the committed file's labels, and the report says so.
    const file = readGoldLabelFile(BENCH)!;
    expect(report.gold_labels_from).toEqual({ file: file.path, tasks: report.tasks });
    for (const i of report.instances) expect(i.gold_labels).toEqual(file.instances.get(i.task)!.labels);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    for (const row of [
      'resolve rate',
      'cost / instance',
      'tokens / instance',
      'call precision',
      'tool-selection accuracy',
      'correct-abstention rate',
    ])
      expect(md).toContain(`| ${row}`);
    expect(md).toContain(`gold labels from \`${file.path}\` (checked by hand), 20 task(s)`);
    expect(existsSync(join(out, 'report.md'))).toBe(true);
  });
});
