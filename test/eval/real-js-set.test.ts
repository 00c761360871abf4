// The committed JavaScript/TypeScript task set (eval/tasks/real-js) works end to end in piper's own
// environments, as the Python real set does: `ab validate` builds each project's environment (its
// lockfile or manifest, its package manager, Node's major, scripts offline) and runs each instance's
// tests with the project's runner (jest, vitest, mocha, ava) at base_commit with the test patch,
// then with the gold patch too, naming them as the instance's SWE-bench log parser does; every
// instance must be valid. Then `ab --model sim:1` runs both arms over the set into the same out
// directory (reading validation.json back): every instance graded test by test under the names its
// lists hold. The format checks that need no sandbox are test/integration/real-js-set.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const SET = join(packageRoot(), 'eval', 'tasks', 'real-js');
const BENCH = join(SET, 'instances.jsonl');
const instances = loadInstances(BENCH);
const ids = instances.map((i) => i.instance_id);
const SET_FLAGS = ['--bench', BENCH, '--repos', join(SET, 'repos')];

describe('the committed JavaScript/TypeScript task set (real environments, real runners)', () => {
  const out = mkdtempSync(join(tmpdir(), 'piper-real-js-set-'));
  let validate: CliResult;
  let ab: CliResult;
  let report: AbReport;

  beforeAll(async () => {
    validate = await runCli(['ab', 'validate', ...SET_FLAGS, '--out', out]);
    ab = await runCli(['ab', ...SET_FLAGS, '--model', 'sim:1', '--out', out, '--concurrency', '2']);
    report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;
  }, 1_800_000);

  it('ab validate calls every instance valid, one line each, and exits 0', () => {
    const lines = validate.stdout.trim().split('\n');
    expect(
      lines.filter((l) => !l.startsWith('valid ')),
      validate.stdout + validate.stderr.slice(-2000),
    ).toEqual([
      expect.stringMatching(new RegExp(`^${ids.length} of ${ids.length} instance\\(s\\) valid, 0 invalid`)),
    ]);
    expect(lines.slice(0, -1).map((l) => l.split(/\s+/)[1])).toEqual(ids);
    expect(validate.code).toBe(0);
  });

  it('ab --model sim:1 runs both arms on every instance, graded by the names the lists hold', () => {
    expect(ab.code, ab.stderr.slice(-3000)).toBe(0);
    expect(ab.stderr).toMatch(new RegExp(`^${2 * ids.length} instance\\(s\\) run, 0 read back`, 'm'));
    expect(report).toMatchObject({ complete: true, invalid: [], arms: ['policy', 'current'] });
    expect([...report.tasks].sort()).toEqual([...ids].sort());
    expect(report.instances).toHaveLength(2 * ids.length);
    const byId = new Map(instances.map((i) => [i.instance_id, i]));
    for (const i of report.instances) {
      const instance = byId.get(i.task)!;
      const names = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS];
      expect(Object.keys(i.tests).sort()).toEqual(names.sort());
      expect(i.resolved).toBe(Object.values(i.tests).every((s) => s === 'passed'));
      // An agent's run never makes a test the project's runner did not report: every name is read.
      expect(Object.values(i.tests), i.task).not.toContain('missing');
    }
    for (const arm of ['policy', 'current'] as const) {
      const m = report.measures[arm]!;
      expect(m.instances).toBe(ids.length);
      // The simulated model applies the gold patch's hunks as module edits: some instance resolves.
      expect(m.resolveRate.of!.numerator).toBeGreaterThan(0);
      expect(m.tokensPerInstance.value).toEqual(expect.any(Number));
    }
  });
});
