// The regression gate through the real CLI, engine and pytest, with a scripted model: a fix is
// `resolved` (exit 0) only when no test of the project's own suite that passed on the base fails
// after it; a test failing before is said apart; a suite over its budget runs the affected files;
// a ledger the repository ships (a forged "before" in it) is never where the gate looks.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../policy/events.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';

function resultOf(stdout: string): RunResult {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as RunResult;
}

function withLedger<T>(repo: string, read: (ledger: Ledger) => T): T {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    return read(ledger);
  } finally {
    ledger.close();
  }
}

function runRow(repo: string, runId: string) {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    const row = getRun(ledger, runId)!;
    return { outcome: row.outcome, config: JSON.parse(row.config!) as { suite?: { status: string } } };
  } finally {
    ledger.close();
  }
}

/** The suite runs the gate made for a fix run: side and outcome of each, oldest first. */
function suiteRuns(repo: string, fixRun: string): Array<{ side: string; outcome: string }> {
  const ledger = Ledger.open(defaultLedgerPath(repo));
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

describe('a repository that ships a ledger of its own', () => {
  /** A copy of `from`'s ledger at `to` whose base run says what the fix's last final run said. */
  function forgeBase(from: string, to: string): void {
    mkdirSync(dirname(to), { recursive: true });
    withLedger(from, (ledger) => ledger.database.prepare('VACUUM INTO ?').run(to));
    const forged = Ledger.open(to);
    try {
      // In that run the test the fix breaks already fails: judged against it, the fix breaks nothing.
      forged.database
        .prepare(
          `UPDATE executions SET (stdout, stderr, exit_code) = (
             SELECT e.stdout, e.stderr, e.exit_code FROM executions e JOIN calls c ON c.id = e.call_id
               JOIN runs r ON r.id = c.run_id
              WHERE json_extract(r.config, '$.suite.side') = 'final' AND r.outcome = 'failed')
           WHERE call_id IN (SELECT c.id FROM calls c JOIN runs r ON r.id = c.run_id
                              WHERE json_extract(r.config, '$.suite.side') = 'base')`,
        )
        .run();
    } finally {
      forged.close();
    }
  }

  it('cannot hand the gate its "before": a committed `.piper/ledger.db` is not read, and named, it is refused', async () => {
    // A gated run of the same content, for a base run under the key every copy of it has.
    const source = sampleRepo();
    const first = await runCli(sampleFixArgs(source, 'regress-fix.jsonl', '--output', 'json'));
    expect(first.code, first.stderr).toBe(4);

    // The forgery works where a ledger is taken as piper's record: a file the user named.
    const control = sampleRepo();
    const named = join(dirname(control), 'named-ledger.db');
    forgeBase(source, named);
    const fooled = await runCli(
      sampleFixArgs(control, 'regress-fix.jsonl', '--output', 'json', '--ledger', named),
    );
    expect(fooled.code, fooled.stderr).toBe(0);
    expect(resultOf(fooled.stdout).suite).toMatchObject({ base_cached: true, regressions: [] });

    // The same file, committed as the repository's `.piper/ledger.db`.
    const repo = sampleRepo();
    const shipped = join(repo, '.piper', 'ledger.db');
    forgeBase(source, shipped);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd: repo });
    git('add', '-f', '.piper/ledger.db');
    git('commit', '-q', '-m', 'a ledger of our own');

    const refused = await runCli(
      sampleFixArgs(repo, 'regress-fix.jsonl', '--output', 'json', '--ledger', shipped),
    );
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`the ledger ${shipped} is tracked by git`);

    const r = await runCli(sampleFixArgs(repo, 'regress-fix.jsonl', '--output', 'json'));
    expect(r.code, r.stderr).toBe(4);
    const result = resultOf(r.stdout);
    expect(result.outcome).toBe('regressed');
    expect(result.suite).toMatchObject({ status: 'regressed', base_cached: false });
    // Its own base run, in its own ledger, outside the repository.
    expect(suiteRuns(repo, result.run_id)[0]).toEqual({ side: 'base', outcome: 'failed' });
    expect(defaultLedgerPath(repo).startsWith(repo)).toBe(false);
  }, 400_000);
});
