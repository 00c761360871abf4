// The rule of a sound instance (eval/swebench/validity.ts) on hand-made outcomes: an instance is
// judged by its gold run as the public harness validates a set, after the one check that keeps it
// meaningful (no FAIL_TO_PASS test passes at base_commit).
import { describe, expect, it } from 'vitest';
import { baseOnlyNote, baseProblem, goldProblem, type RunOutcomes } from '../../eval/swebench/validity.js';
import type { TestStatus } from '../../eval/swebench/test-grade.js';

const instance = { FAIL_TO_PASS: ['t_fix'], PASS_TO_PASS: ['t_old', 't_new_dask'] };

function run(tests: Record<string, TestStatus>, timedOut = false): RunOutcomes {
  return { tests, timedOut };
}

describe('baseProblem', () => {
  it('refuses an instance whose FAIL_TO_PASS test already passes at base_commit', () => {
    const base = run({ t_fix: 'passed', t_old: 'passed', t_new_dask: 'passed' });
    expect(baseProblem(instance, base)).toBe(
      'FAIL_TO_PASS t_fix already passes at base_commit with the test patch',
    );
  });

  it('leaves a PASS_TO_PASS test failing at base_commit to the gold run', () => {
    expect(baseProblem(instance, run({ t_fix: 'failed', t_old: 'passed', t_new_dask: 'failed' }))).toBeNull();
  });

  it('names a timeout at base_commit', () => {
    expect(baseProblem(instance, run({ t_fix: 'failed' }, true))).toBe('the tests timed out at base_commit');
  });
});

describe('goldProblem and baseOnlyNote', () => {
  it('accepts PASS_TO_PASS tests that fail at base_commit and pass with the gold patch, with a note', () => {
    const base = run({ t_fix: 'failed', t_old: 'passed', t_new_dask: 'failed' });
    const gold = run({ t_fix: 'passed', t_old: 'passed', t_new_dask: 'passed' });
    expect(goldProblem(instance, base, gold)).toBeNull();
    expect(baseOnlyNote(instance, base, gold)).toBe(
      'PASS_TO_PASS t_new_dask (failed) fails at base_commit and passes with the gold patch (graded as listed)',
    );
  });

  it('says a PASS_TO_PASS test failing in both runs fails at base_commit too (the environment, not the gold patch)', () => {
    const base = run({ t_fix: 'failed', t_old: 'missing', t_new_dask: 'passed' });
    const gold = run({ t_fix: 'passed', t_new_dask: 'passed' });
    expect(goldProblem(instance, base, gold)).toBe(
      'PASS_TO_PASS t_old (missing) does not pass at base_commit, nor with the gold patch',
    );
  });

  it('names the PASS_TO_PASS tests failing in both runs first, whatever else failed with them', () => {
    const base = run({ t_fix: 'missing', t_old: 'missing', t_new_dask: 'missing' });
    const gold = run({});
    expect(goldProblem(instance, base, gold)).toBe(
      'PASS_TO_PASS t_old (missing), t_new_dask (missing) does not pass at base_commit, nor with the gold patch',
    );
  });

  it('blames the gold patch when a test it should make pass does not', () => {
    const base = run({ t_fix: 'failed', t_old: 'passed', t_new_dask: 'passed' });
    const gold = run({ t_fix: 'failed', t_old: 'passed', t_new_dask: 'skipped' });
    expect(goldProblem(instance, base, gold)).toBe(
      'with the gold patch, t_fix (failed) does not pass: the gold patch does not resolve it',
    );
    expect(baseOnlyNote(instance, base, gold)).toBeNull();
  });

  it('names a timeout with the gold patch', () => {
    const base = run({ t_fix: 'failed', t_old: 'passed', t_new_dask: 'passed' });
    const gold = run({ t_fix: 'passed', t_old: 'passed', t_new_dask: 'passed' }, true);
    expect(goldProblem(instance, base, gold)).toBe('the tests timed out with the gold patch');
  });
});
