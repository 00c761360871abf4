// run_test with real pytest in the real sandbox, on fixture suites: passing, failing, timing out,
// erroring at collection, and one that writes into its copy of the repo (the host repo stays as it was).
import { cpSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute } from '../../primitives/tools/execute/effect.js';
import { RUN_TEST_LIMITS, runTest, shellArgv, targetArgv } from '../../primitives/tools/run-test/effect.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft, makeSandbox } from '../helpers/sandbox.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { getCall, getExecution } from '../../runtime/ledger/calls.js';

const suites = join(packageRoot(), 'test', 'fixtures', 'suites');
const sandbox = makeSandbox({ poolSize: 1, workspacePoolSize: 1, workspacePoolLimits: RUN_TEST_LIMITS });
const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-rt-')), 'ledger.db'));
const runId = createRun(ledger, { kind: 'fix', repo: suites, owner: 'test' });
const ctx = (suite: string) => ({
  sandbox,
  ledger,
  runId,
  owner: 'test',
  origin: 'model' as const,
  repoRoot: join(suites, suite),
});

afterAll(async () => {
  await sandbox.close();
  ledger.close();
  await expectNoContainersLeft();
});

describe('run_test (real pytest, real sandbox)', () => {
  it('passes a passing suite, with counts, and records the call', async () => {
    const { callId, result } = await runTest(ctx('passing'), { target: 'tests/' });
    expect(result).toMatchObject({
      passed: true,
      exit_code: 0,
      timed_out: false,
      counts: { passed: 2, failed: 0, errors: 0, skipped: 0 },
    });
    expect(result.output).toMatch(/2 passed/);
    expect(getCall(ledger, callId)).toMatchObject({ status: 'completed', tool: 'run_test', origin: 'model' });
    expect(getExecution(ledger, callId)).toMatchObject({ exit_code: 0 });
  });

  it('fails a failing suite from its exit code and keeps the end of the traceback', async () => {
    const { result } = await runTest(ctx('failing'), { target: 'tests/test_parse.py::test_spaces' });
    expect(result.passed).toBe(false);
    expect(result.exit_code).toBe(1);
    expect(result.counts).toEqual({ passed: 0, failed: 1, errors: 0, skipped: 0 });
    expect(result.output).toContain("E       AssertionError: assert ('a ', 1) == ('a', 1)");
    expect(result.output.trimEnd().endsWith('1 failed in')).toBe(false);
    expect(result.output).toMatch(/=+ 1 failed in [\d.]+s =+$/);
    expect(result.output.split('\n').length).toBeLessThanOrEqual(50);
    expect(result.output.length).toBeLessThanOrEqual(2000);
  });

  it('kills a suite at its timeout', async () => {
    const t0 = Date.now();
    const { result } = await runTest(ctx('slow'), { target: 'tests/test_slow.py', timeout: 2 });
    expect(result).toMatchObject({ passed: false, timed_out: true, exit_code: 137 });
    expect(Date.now() - t0).toBeLessThan(6000);
  });

  it('reports a collection error', async () => {
    const { result } = await runTest(ctx('erroring'), { target: 'tests' });
    expect(result.passed).toBe(false);
    expect(result.exit_code).toBe(2);
    expect(result.counts?.errors).toBe(1);
    expect(result.output).toContain("ModuleNotFoundError: No module named 'does_not_exist'");
  });

  it('runs a shell string target', async () => {
    const { result } = await runTest(ctx('passing'), {
      target: 'python3 -c "import shapes; print(shapes.area(5, 5))"',
    });
    expect(result).toMatchObject({ passed: true, exit_code: 0 });
    expect(result.output).toBe('25');
  });

  it('never changes the host repo, even when the tests write files', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'piper-writer-'));
    cpSync(join(suites, 'writer'), copy, { recursive: true });
    const before = readdirSync(copy, { recursive: true }).sort();
    const conftest = readFileSync(join(copy, 'conftest.py'), 'utf8');
    const { result } = await runTest({ ...ctx('writer'), repoRoot: copy }, { target: 'tests/' });
    expect(result.passed).toBe(true);
    expect(readdirSync(copy, { recursive: true }).sort()).toEqual(before);
    expect(readFileSync(join(copy, 'conftest.py'), 'utf8')).toBe(conftest);
  });
});

describe('run_test from the warm pool', () => {
  it('gives the same result from a pre-started container with pytest already imported', async () => {
    await sandbox.init();
    const { callId, result } = await runTest(ctx('failing'), { target: 'tests/test_parse.py' });
    expect(getExecution(ledger, callId)).toMatchObject({ warm: 1 });
    expect(result).toMatchObject({
      passed: false,
      exit_code: 1,
      counts: { passed: 1, failed: 1, errors: 0, skipped: 0 },
    });
    expect(result.output).toContain("E       AssertionError: assert ('a ', 1) == ('a', 1)");
  });
});

describe('execute primitive', () => {
  it('returns the captured streams and exit code, from the workspace pool, with the project at /work', async () => {
    await sandbox.init();
    const { callId, result } = await execute(ctx('passing'), {
      code: 'import sys, shapes\nprint(2**10, shapes.__file__)\nsys.exit(3)',
    });
    expect(result).toEqual({ stdout: '1024 /work/shapes.py\n', stderr: '', exit_code: 3, timed_out: false });
    expect(getExecution(ledger, callId)).toMatchObject({ warm: 1, exit_code: 3 });
  });

  it('leaves the host repo as it was: the program writes into its copy', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'piper-exec-writer-'));
    cpSync(join(suites, 'passing'), copy, { recursive: true });
    const before = readdirSync(copy, { recursive: true }).sort();
    const { result } = await execute(
      { ...ctx('passing'), repoRoot: copy },
      {
        code: 'import os\nopen("shapes.py", "w").write("broken")\nos.mkdir("new")\nprint(sorted(os.listdir(".")))',
      },
    );
    expect(result.exit_code, result.stderr).toBe(0);
    expect(result.stdout).toContain("'new'");
    expect(readdirSync(copy, { recursive: true }).sort()).toEqual(before);
    expect(readFileSync(join(copy, 'shapes.py'), 'utf8')).not.toBe('broken');
  });
});

describe('targetArgv', () => {
  it('tells pytest targets from shell strings', () => {
    expect(targetArgv('tests/test_a.py::test_b')).toEqual([
      'python3',
      '-m',
      'pytest',
      'tests/test_a.py::test_b',
    ]);
    expect(targetArgv('tests/ -k "parse and not slow"')).toEqual(
      shellArgv('python3 -m pytest tests/ -k "parse and not slow"'),
    );
    expect(targetArgv('tests', join(suites, 'passing'))).toEqual(['python3', '-m', 'pytest', 'tests']);
    expect(targetArgv('tests')).toEqual(shellArgv('tests'));
    expect(targetArgv('tests/ -k parse -x')).toEqual([
      'python3',
      '-m',
      'pytest',
      'tests/',
      '-k',
      'parse',
      '-x',
    ]);
    expect(targetArgv('test_a.py test_b.py::TestX::test_y[1]')).toEqual([
      'python3',
      '-m',
      'pytest',
      'test_a.py',
      'test_b.py::TestX::test_y[1]',
    ]);
    expect(targetArgv('make check')).toEqual(shellArgv('make check'));
    expect(targetArgv('-q tests/')).toEqual(['python3', '-m', 'pytest', '-q', 'tests/']);
  });
});
