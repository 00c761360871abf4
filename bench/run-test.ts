// node dist/bench/run-test.js [--json] [--rounds N]
// run_test (a repo snapshot as a tar stream into a fresh hardened container, real pytest there)
// against the host's own `/usr/bin/python3 -m pytest` (Debian's python3-pytest, the same pytest
// the sandbox image carries) on the same generated 30-test repository, side by side, interleaved.
// Target: run_test p50 ≤ 2 × host pytest p50.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RUN_TEST_LIMITS, runTest } from '../primitives/run-test.js';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { Sandbox } from '../runtime/sandbox/sandbox.js';
import { percentile, printTable } from './stats.js';

const HOST_PYTHON = '/usr/bin/python3';

function makeRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'piper-bench-rt-'));
  mkdirSync(join(repo, 'shapes'));
  mkdirSync(join(repo, 'tests'));
  writeFileSync(join(repo, 'conftest.py'), '');
  writeFileSync(join(repo, 'shapes', '__init__.py'), '');
  writeFileSync(
    join(repo, 'shapes', 'geometry.py'),
    'import math\n\ndef area(r):\n    return math.pi * r * r\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n',
  );
  for (let f = 0; f < 3; f++) {
    const tests = Array.from(
      { length: 10 },
      (_, i) =>
        `def test_case_${i}():\n    assert perimeter(${i}, ${f}) == 2 * (${i} + ${f})\n    assert area(${i}) >= 0\n`,
    ).join('\n');
    writeFileSync(
      join(repo, 'tests', `test_geometry_${f}.py`),
      `from shapes.geometry import area, perimeter\n\n${tests}`,
    );
  }
  return repo;
}

function hostPytest(repo: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(HOST_PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/'], {
      cwd: repo,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && /30 passed/.test(out)
        ? resolve(performance.now() - t0)
        : reject(
            new Error(
              `host pytest failed (${code}): ${out.slice(-400)}\n(install Debian's python3-pytest: apt-get install python3-pytest)`,
            ),
          ),
    );
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, rounds: { type: 'string', default: '15' } },
  });
  const rounds = Number(values.rounds);
  const repo = makeRepo();
  const { engine } = await connectEngine();
  const sandbox = new Sandbox(engine, {
    image: loadRecipe().ref,
    workspacePoolSize: 1,
    workspacePoolLimits: RUN_TEST_LIMITS,
  });
  const pool = (sandbox as unknown as { workspacePool: { warm(): Promise<void> } }).workspacePool;
  await sandbox.init();
  const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
  const runId = ledger.createRun({ kind: 'run_test', repo, owner: 'bench' });
  const ctx = { sandbox, ledger, runId, owner: 'bench', origin: 'user' as const, repoRoot: repo };
  const sandboxed: number[] = [];
  const host: number[] = [];
  await hostPytest(repo);
  await runTest(ctx, { target: '-q tests/' });
  for (let i = 0; i < rounds; i++) {
    host.push(await hostPytest(repo));
    // The pool refills after a call, as it does while the model thinks in a real run.
    await pool.warm();
    const t0 = performance.now();
    const { result } = await runTest(ctx, { target: '-q tests/' });
    sandboxed.push(performance.now() - t0);
    if (!result.passed || result.counts?.passed !== 30) throw new Error(`run_test failed: ${result.output}`);
    process.stderr.write(`\rround ${i + 1}/${rounds}`);
  }
  process.stderr.write('\n');
  await sandbox.close();
  ledger.close();
  const result = {
    rounds,
    tests: 30,
    run_test_p50_ms: percentile(sandboxed, 50),
    run_test_p95_ms: percentile(sandboxed, 95),
    host_pytest_p50_ms: percentile(host, 50),
    run_test_over_host: Math.round((percentile(sandboxed, 50) / percentile(host, 50)) * 100) / 100,
    target: 2,
  };
  printTable([
    ['run_test p50 / p95 (ms)', `${result.run_test_p50_ms} / ${result.run_test_p95_ms}`],
    ['host pytest p50 (ms)', result.host_pytest_p50_ms],
    ['run_test / host pytest', `${result.run_test_over_host} × (target ≤ 2)`],
  ]);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
