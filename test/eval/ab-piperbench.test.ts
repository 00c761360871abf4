// An earlier issue's "done when": `piper-agent ab --bench eval/tasks/piperbench --model sim:1 --out OUT` over
// the whole task set, as a process, in CI: both arms, every measure, the decision and why.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';

describe('piper-agent ab over the whole piperbench set (sim:1, real sandbox)', () => {
  it('writes report.json and report.md with all measures of both arms and the decision', async () => {
    const out = mkdtempSync(join(tmpdir(), 'piper-ab-full-'));
    const r = await runCli(
      [
        'ab',
        '--bench',
        join(packageRoot(), 'eval', 'tasks', 'piperbench'),
        '--model',
        'sim:1',
        '--out',
        out,
        '--concurrency',
        '2',
        // The A/B protocol end to end, not where packages come from: Debian's packages, as before.
      ],
      { env: { PIPER_SOURCES: 'debian' } },
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report).toMatchObject({ arms: ['policy', 'current'], complete: true, simulated: true });
    expect(report.instances).toHaveLength(2 * report.tasks.length);
    expect(report.tasks.length).toBeGreaterThanOrEqual(20);
    for (const arm of ['policy', 'current']) {
      const m = report.measures[arm];
      for (const key of [
        'resolveRate',
        'costPerInstance',
        'tokensPerInstance',
        'selectionAccuracy',
        'correctAbstention',
      ]) {
        expect(typeof m[key].value, `${arm}.${key}`).toBe('number');
      }
      expect(m.callPrecision.note).toMatch(/not measured/);
    }
    expect(['adopted', 'not_adopted', 'undecided']).toContain(report.decision.verdict);
    expect(report.decision.clauses.map((c: { name: string }) => c.name)).toEqual([
      'resolve',
      'cost',
      'tokens',
      'call_precision',
      'selection_accuracy',
    ]);
    expect(existsSync(join(out, 'report.md'))).toBe(true);
  }, 600_000);
});
