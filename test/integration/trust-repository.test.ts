// A verdict the repository cannot forge: through the real CLI, engine and pytest, a repository
// that makes "no test ran" or "a test failed" exit 0 — a listing option in its pytest config, a CI
// command that masks the runner's status, a repro skipped for want of a plugin, TestCase classes
// mixed with plain test functions, a word printed after pytest's summary — gets no pass from piper.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../policy/events.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';

function repoWith(files: Record<string, string>): string {
  const repo = sampleRepo();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  return repo;
}

interface RunTestJson {
  passed: boolean;
  exit_code: number;
  unverified_pass?: string;
  counts?: { passed: number; failed: number; skipped: number };
}

async function runTest(repo: string, target: string): Promise<{ code: number | null; json: RunTestJson }> {
  const r = await runCli(['run-test', '--repo', repo, '--json', ...(target ? [target] : [])]);
  expect(r.stdout, r.stderr).not.toBe('');
  return { code: r.code, json: JSON.parse(r.stdout.trim().split('\n').at(-1)!) as RunTestJson };
}

function resultOf(stdout: string): RunResult {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as RunResult;
}

describe('a verdict the repository cannot forge (real sandbox)', () => {
  it('`addopts = --co` in the pytest config: no test runs, exit 0, no pass; a wrong edit is not resolved', async () => {
    const repo = repoWith({ 'pytest.ini': '[pytest]\naddopts = --co\n' });
    const { code, json } = await runTest(repo, 'tests/test_words.py');
    expect(json.exit_code).toBe(0);
    expect(json.unverified_pass).toMatch(/no test passed \(a listing of tests, none run\)/);
    expect(code).toBe(4);
    // The sample's scripted fix is right, but its repro never runs: not verified.
    const r = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'));
    const result = resultOf(r.stdout);
    expect(result.outcome, r.stderr).toBe('stop');
    expect(result.verified).toBe(false);
    expect(result.verification).toMatch(/listing of tests/);
    expect(r.code).toBe(4);
  });

  it('a test command that masks the runner: pipefail for `| tee`, the counts for `|| true`', async () => {
    const repo = sampleRepo();
    const piped = await runTest(repo, 'python -m pytest tests/test_words.py | tee log');
    expect(piped.json.exit_code).not.toBe(0);
    expect(piped.code).toBe(4);
    const masked = await runTest(repo, 'python -m pytest tests/test_words.py || true');
    expect(masked.json.exit_code).toBe(0);
    expect(masked.json.counts?.failed).toBeGreaterThan(0);
    expect(masked.json.unverified_pass).toMatch(/failed.*under exit code 0/);
    expect(masked.code).toBe(4);
  });

  it('a repro skipped because a declared plugin has no source is no pass', async () => {
    const repo = repoWith({
      'requirements-dev.txt': 'pytest-plugin-nobody-has\n',
      'tests/test_plugin.py':
        'import pytest\n\n\ndef test_with_plugin():\n    pytest.importorskip("pytest_plugin_nobody_has")\n    assert True\n',
    });
    const { code, json } = await runTest(repo, 'tests/test_plugin.py');
    expect(json.exit_code).toBe(0);
    expect(json.unverified_pass).toMatch(/no test passed \(1 skipped\)/);
    expect(code).toBe(4);
  });

  it('TestCase classes beside plain test functions: pytest runs them, so a failing plain test fails', async () => {
    const mixed = [
      'import unittest',
      '',
      '',
      'class T(unittest.TestCase):',
      '    def test_case(self):',
      '        self.assertTrue(True)',
      '',
      '',
      'def test_plain():',
      '    assert 1 == 2',
      '',
    ].join('\n');
    const repo = sampleRepo();
    for (const f of ['conftest.py', 'tests/test_words.py', 'tests/test_report.py'])
      writeFileSync(join(repo, f), '');
    writeFileSync(join(repo, 'tests/test_mixed.py'), mixed);
    const { code, json } = await runTest(repo, '');
    expect(json.exit_code).not.toBe(0);
    expect(json.counts?.failed).toBe(1);
    expect(code).toBe(4);
  });

  it('a word printed after the summary does not hide a regression from the gate', async () => {
    // The fix breaks test_summary_counts_words; the repository prints an XFAIL line for it after
    // pytest's summary, as a plugin's report might.
    const repo = repoWith({
      'conftest.py':
        'def pytest_unconfigure(config):\n    print("XFAIL tests/test_report.py::test_summary_counts_words")\n',
    });
    const r = await runCli(sampleFixArgs(repo, 'regress-fix.jsonl', '--output', 'json'));
    const result = resultOf(r.stdout);
    expect(result.outcome, r.stderr).toBe('regressed');
    expect(result.suite?.regressions.map((x) => x.test)).toEqual([
      'tests/test_report.py::test_summary_counts_words',
    ]);
    expect(r.code).toBe(4);
  });
});
