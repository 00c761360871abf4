// node dist/bench/regression-gate.js [--json] [--rounds N] [--think-ms MS]
// The regression gate's added wall time on a 300-test project once its base run is cached (a
// second fix on the same commit): a whole headless `fix` (runFix in this process, the real engine
// and pytest, a scripted model that waits --think-ms before each reply as a hosted model does)
// with the gate, against the same fix with `suiteTimeoutS: 0` (no gate) as the baseline, side by
// side, interleaved round by round, the tree put back (git checkout) before each run. Also the
// suite's own time (its final run's container time, from the ledger) and the gate's `seconds`
// (the wait after the loop). Goal (issue): the added time under a quarter of the suite's own time.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runFix } from '../core/fix/run-fix.js';
import type { RunResult } from '../policy/events.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { scriptModelFromReplies } from '../runtime/model/script-model.js';
import type { ChatModel } from '../runtime/model/types.js';
import { percentile, printTable } from './stats.js';

const FILES = 30;
const TESTS_PER_FILE = 10;

const SCRIPT = [
  '{"tool": "read_entity", "args": {"selector": "calc.core.clamp", "body": true}}',
  '{"tool": "edit_entity", "args": {"selector": "calc.core.clamp", "search": "min(x, hi - 1)", "replace": "min(x, hi)"}}',
  '{"tool": "run_test", "args": {"target": "tests/test_clamp.py"}}',
  '{"tool": "stop", "args": {"reason": "clamp cut the upper bound by one; it keeps hi now"}}',
];

/** A git repository: a package, 300 tests over it that pass, and a clamp bug its repro test shows. */
function makeProject(): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'piper-bench-gate-')), 'repo');
  mkdirSync(join(repo, 'calc'), { recursive: true });
  mkdirSync(join(repo, 'tests'));
  writeFileSync(join(repo, 'conftest.py'), '');
  writeFileSync(join(repo, 'calc', '__init__.py'), '');
  writeFileSync(
    join(repo, 'calc', 'core.py'),
    'def clamp(x, lo, hi):\n    return max(lo, min(x, hi - 1))\n\n\ndef total(n):\n    return sum(range(n))\n',
  );
  writeFileSync(
    join(repo, 'tests', 'test_clamp.py'),
    'from calc.core import clamp\n\n\ndef test_upper_bound_is_kept():\n    assert clamp(10, 0, 5) == 5\n',
  );
  for (let f = 0; f < FILES; f++) {
    const tests = Array.from(
      { length: TESTS_PER_FILE },
      (_, i) =>
        `def test_total_${i}():\n    assert total(${2000 * (i + 1)}) == ${(2000 * (i + 1) * (2000 * (i + 1) - 1)) / 2}\n`,
    ).join('\n');
    writeFileSync(join(repo, 'tests', `test_total_${f}.py`), `from calc.core import total\n\n\n${tests}`);
  }
  writeFileSync(join(repo, 'ISSUE.md'), 'clamp(10, 0, 5) returns 4; it should return 5.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'bench project');
  return repo;
}

/** The script's replies, each after `thinkMs`: the model's own time, which the gate's runs overlap. */
function thinkingModel(thinkMs: number): ChatModel {
  const script = scriptModelFromReplies(SCRIPT, { protocol: 'json' });
  return {
    id: 'script:bench-gate',
    protocol: script.protocol,
    complete: async (req, signal) => {
      await new Promise((resolve) => setTimeout(resolve, thinkMs));
      return script.complete(req, signal);
    },
  };
}

async function oneFix(
  repo: string,
  thinkMs: number,
  gate: boolean,
): Promise<{ ms: number; result: RunResult }> {
  execFileSync('git', ['checkout', '-q', '--', '.'], { cwd: repo });
  const t0 = performance.now();
  const result = await runFix({
    issue: 'clamp(10, 0, 5) returns 4; it should return 5.',
    repo,
    config: { maxTurns: 10, suiteTimeoutS: gate ? 600 : 0, ledger: ledgerOf(repo) },
    reproTarget: 'tests/test_clamp.py',
    emit: () => undefined,
    log: () => undefined,
    model: thinkingModel(thinkMs),
  });
  const ms = performance.now() - t0;
  if (result.outcome !== 'resolved')
    throw new Error(`the bench fix ended ${result.outcome}: ${result.reason}`);
  return { ms, result };
}

/** The bench's ledger: beside the project, in its temp directory, so nothing is left in the state directory. */
function ledgerOf(repo: string): string {
  return `${repo}.ledger.db`;
}

/** The container time of the fix's final suite run, from the ledger. */
function suiteMs(repo: string, runId: string): number {
  const ledger = Ledger.open(ledgerOf(repo));
  try {
    const row = ledger.database
      .prepare(
        `SELECT e.total_ms AS ms FROM runs r JOIN calls c ON c.run_id = r.id JOIN executions e ON e.call_id = c.id
          WHERE json_extract(r.config, '$.suite.fix_run') = ? AND json_extract(r.config, '$.suite.side') = 'final'
          ORDER BY r.started_at DESC LIMIT 1`,
      )
      .get(runId) as { ms: number } | undefined;
    return row?.ms ?? NaN;
  } finally {
    ledger.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'think-ms': { type: 'string' },
    },
  });
  const rounds = Number(values.rounds ?? 5);
  const thinkMs = Number(values['think-ms'] ?? 3000);
  const repo = makeProject();
  // The first gated fix runs the base and leaves it in the ledger: every round after reuses it.
  const warm = await oneFix(repo, thinkMs, true);
  const withGate: number[] = [];
  const without: number[] = [];
  const suite: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const gated = await oneFix(repo, thinkMs, true);
    if (!gated.result.suite?.base_cached) throw new Error('the base run was not reused');
    withGate.push(gated.ms);
    suite.push(suiteMs(repo, gated.result.run_id));
    after.push((gated.result.suite.seconds ?? 0) * 1000);
    without.push((await oneFix(repo, thinkMs, false)).ms);
  }
  const added = percentile(withGate, 50) - percentile(without, 50);
  const out = {
    tests: FILES * TESTS_PER_FILE + 1,
    rounds,
    think_ms: thinkMs,
    first_fix_suite: warm.result.suite?.status,
    fix_with_gate_p50_ms: percentile(withGate, 50),
    fix_without_gate_p50_ms: percentile(without, 50),
    added_p50_ms: Math.round(added),
    wait_after_loop_p50_ms: percentile(after, 50),
    suite_own_p50_ms: percentile(suite, 50),
    added_over_suite: Math.round((added / percentile(suite, 50)) * 100) / 100,
  };
  printTable(Object.entries(out).map(([k, v]) => [k, String(v)]));
  if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
}

await main();
