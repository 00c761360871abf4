// The committed real task set (eval/tasks/real) works end to end, so an A/B over it measures the
// agent rather than a broken instance: every instance passes
// `ab validate` (the real CLI builds each project's environments as `ab` builds them and runs each
// instance's FAIL_TO_PASS and PASS_TO_PASS tests in the sandbox at base_commit with the test patch,
// then with the gold patch too), and `ab --model sim:1` runs the whole set end to end into the same
// out directory (reading validation.json instead of validating again): both arms on every instance,
// graded by those tests, each test's outcome in report.json, report.md written, none invalid.
// Minutes of environment builds and runs, so it is in `make test-eval` (CI runs it after `make test`).
// The format checks that need no sandbox are test/integration/real-set.test.ts.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
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

describe('the committed real task set (real environments, real pytest)', () => {
  const out = mkdtempSync(join(tmpdir(), 'piper-real-set-'));
  let validate: CliResult;
  let ab: CliResult;

  beforeAll(async () => {
    validate = await runCli(['ab', 'validate', ...SET_FLAGS, '--out', out]);
    ab = await runCli(['ab', ...SET_FLAGS, '--model', 'sim:1', '--out', out, '--concurrency', '2']);
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

  it('ab --model sim:1 runs both arms on every instance, graded test by test, none invalid', () => {
    expect(ab.code, ab.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;
    expect(report).toMatchObject({ complete: true, invalid: [], arms: ['policy', 'current'] });
    expect(report.instances).toHaveLength(2 * ids.length);
    const byId = new Map(instances.map((i) => [i.instance_id, i]));
    for (const i of report.instances) {
      const instance = byId.get(i.task)!;
      const tests = [...JSON.parse(instance.FAIL_TO_PASS), ...JSON.parse(instance.PASS_TO_PASS)] as string[];
      expect(Object.keys(i.tests).sort()).toEqual(tests.sort());
      expect(i.resolved).toBe(Object.values(i.tests).every((s) => s === 'passed'));
    }
    expect(existsSync(join(out, 'report.md'))).toBe(true);
  });
});
