// The regression gate through the real CLI, engine and pytest, with a scripted model: a fix is
// `resolved` (exit 0) only when no test of the project's own suite that passed on the base fails
// after it; a test failing before is said apart; a suite over its budget runs the affected files.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../policy/events.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';

function resultOf(stdout: string): RunResult {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as RunResult;
}

function withLedger<T>(repo: string, read: (ledger: Ledger) => T): T {
  const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
  try {
    return read(ledger);
  } finally {
    ledger.close();
  }
}

function runRow(repo: string, runId: string) {
  const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
  try {
    const row = getRun(ledger, runId)!;
    return { outcome: row.outcome, config: JSON.parse(row.config!) as { suite?: { status: string } } };
  } finally {
    ledger.close();
  }
}

/** The suite runs the gate made for a fix run: side and outcome of each, oldest first. */
function suiteRuns(repo: string, fixRun: string): Array<{ side: string; outcome: string }> {
  const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
  try {
    return ledger.database
      .prepare(
        `SELECT json_extract(config, '$.suite.side') AS side, outcome FROM runs
          WHERE json_extract(config, '$.suite.fix_run') = ? ORDER BY started_at, rowid`,
      )
      .all(fixRun) as Array<{ side: string; outcome: string }>;
  } finally {
    ledger.close();
  }
}

describe('the regression gate (real sandbox, scripted model)', () => {
  it('makes a fix that passes its repro and breaks another test `regressed`, exit 4, naming both', async () => {
    const repo = sampleRepo();
    const r = await runCli(sampleFixArgs(repo, 'regress-fix.jsonl', '--output', 'json'));
    expect(r.code, r.stderr).toBe(4);
    const result = resultOf(r.stdout);
    expect(result).toMatchObject({ outcome: 'regressed', verified: true, exit_code: 4 });
    expect(result.suite?.status).toBe('regressed');
    expect(result.suite?.regressions.map((x) => x.test)).toEqual([
      'tests/test_report.py::test_summary_counts_words',
    ]);
    expect(result.suite?.regressions[0]!.lines.join('\n')).toContain('assert');
    // Both tests named: the repro that passes and the test it broke.
    expect(result.reason).toBe(
      'the repro test (tests/test_words.py) passes, but 1 test(s) that passed before the fix fail, are muted or are gone after it: tests/test_report.py::test_summary_counts_words',
    );
    // One base run (the repro fails there); a final run started early each time the repro passed
    // on a new tree (after the first edit, then after the second): the last one is the verdict's.
    expect(suiteRuns(repo, result.run_id)).toEqual([
      { side: 'base', outcome: 'failed' },
      { side: 'final', outcome: 'passed' },
      { side: 'final', outcome: 'failed' },
    ]);
    expect(runRow(repo, result.run_id)).toMatchObject({
      outcome: 'regressed',
      config: { suite: { status: 'regressed' } },
    });
  });

  it('exits 0 on a clean fix with "suite: N passed before and after", and reuses the base on the same tree', async () => {
    const repo = sampleRepo();
    const first = await runCli(sampleFixArgs(repo));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/suite: 2 passed before and after/);
    // The base run started before the model's first turn: it runs beside the loop, not after it.
    const order = withLedger(repo, (l) =>
      l.database
        .prepare(
          `SELECT (SELECT min(started_at) FROM runs WHERE json_extract(config, '$.suite.side') = 'base') AS base,
                  (SELECT min(created_at) FROM turns) AS firstTurn`,
        )
        .get(),
    ) as { base: string; firstTurn: string };
    expect(order.base <= order.firstTurn, JSON.stringify(order)).toBe(true);
    execFileSync('git', ['checkout', '--', '.'], { cwd: repo });
    const again = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'));
    expect(again.code, again.stderr).toBe(0);
    expect(resultOf(again.stdout).suite).toMatchObject({
      status: 'clean',
      passed_both: 2,
      base_cached: true,
    });
  });

  it('reports a test already failing before apart, and does not block the fix', async () => {
    const repo = sampleRepo();
    writeFileSync(join(repo, 'tests', 'test_known_bug.py'), 'def test_known_bug():\n    assert 1 + 1 == 3\n');
    const r = await runCli(sampleFixArgs(repo));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /suite: 2 passed before and after · 1 failing before and after \(not this fix's\): tests\/test_known_bug.py::test_known_bug/,
    );
  });

  it('over its budget runs the test files that import the changed code and says "partial"', async () => {
    const repo = sampleRepo();
    writeFileSync(
      join(repo, 'tests', 'test_slow.py'),
      'import time\n\n\ndef test_slow():\n    time.sleep(120)\n',
    );
    const r = await runCli(
      sampleFixArgs(repo, 'sample-fix-repro-only.jsonl', '--output', 'json', '--suite-timeout', '8'),
    );
    expect(r.code, r.stderr).toBe(0);
    const result = resultOf(r.stdout);
    expect(result.outcome).toBe('resolved');
    expect(result.suite).toMatchObject({
      status: 'partial',
      files: ['tests/test_words.py'],
      regressions: [],
    });
    expect(result.suite?.reason).toMatch(/over its budget/);
  });
});
