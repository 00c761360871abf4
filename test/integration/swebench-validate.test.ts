// `piper-agent ab validate` on real cachetools fix commits (test/fixtures/swebench, made by
// make-instances.py), with the real engine, environment builds and pytest in the sandbox: the two
// real instances are valid; the one whose "gold patch" is only a docstring is invalid because the gold
// patch does not fix it; a missing repository and a missing commit are invalid by name, before any
// environment is built. Exit 1 (not all valid), one line per instance, a summary, validation.json.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { abValidateCommand } from '../../eval/swebench/validate-command.js';
import type { Validation } from '../../eval/swebench/validate.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft } from '../helpers/sandbox.js';

const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'swebench');

async function capture(args: string[]): Promise<{ code: number; stdout: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await abValidateCommand(args);
    return { code, stdout: lines.join('') };
  } finally {
    spy.mockRestore();
  }
}

describe('piper-agent ab validate (real sandbox, real pytest)', () => {
  const work = mkdtempSync(join(tmpdir(), 'piper-swe-validate-it-'));
  const out = join(work, 'out');
  const bench = join(work, 'set.jsonl');
  let code: number;
  let stdout: string;

  beforeAll(async () => {
    const lines = readFileSync(join(FIXTURES, 'instances.jsonl'), 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    lines.push(
      JSON.stringify({ ...first, instance_id: 'nobody__nothing-1', repo: 'nobody/nothing' }),
      JSON.stringify({ ...first, instance_id: 'tkem__cachetools-0', base_commit: 'deadbeef'.repeat(5) }),
    );
    writeFileSync(bench, `${lines.join('\n')}\n`);
    ({ code, stdout } = await capture(['--bench', bench, '--repos', join(FIXTURES, 'repos'), '--out', out]));
  }, 1_800_000);

  afterAll(async () => {
    await expectNoContainersLeft();
  });

  it('prints valid for the real instances and exits 1 because some are invalid', () => {
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^valid +tkem__cachetools-387 \(\d+\.\d s, environment (built|hit)\)$/);
    expect(lines[1]).toMatch(/^valid +tkem__cachetools-130 \(/);
    expect(lines[5]).toMatch(/^2 of 5 instance\(s\) valid, 3 invalid, in \d+\.\d s$/);
    expect(code).toBe(1);
  });

  it('calls a gold patch that does not fix the instance invalid, naming the test', () => {
    expect(stdout).toContain(
      'INVALID  tkem__cachetools-130-docstring-only: with the gold patch, tests/test_keys.py::CacheKeysTest::test_pickle (failed) does not pass: the gold patch does not resolve it',
    );
  });

  it('names the instance, the repository and the names tried for a missing repository; the commit for a missing one', () => {
    expect(stdout).toMatch(
      /INVALID +nobody__nothing-1: nobody__nothing-1: no repository nobody\/nothing in \S+ \(tried nobody__nothing, nobody__nothing.bundle, nothing, nothing.bundle\)/,
    );
    expect(stdout).toMatch(
      /INVALID +tkem__cachetools-0: tkem__cachetools-0: base_commit (deadbeef){5} is not in \S+tkem__cachetools.bundle \(tkem\/cachetools\)/,
    );
  });

  it('keeps each result in validation.json with the per-test outcomes of both checks', () => {
    const cached = Object.values(
      JSON.parse(readFileSync(join(out, 'validation.json'), 'utf8')) as Record<string, Validation>,
    );
    expect(cached).toHaveLength(5);
    const good = cached.find((v) => v.instanceId === 'tkem__cachetools-387')!;
    expect(good.before).toEqual({
      'tests/test_cachedmethod.py::AutospecTest::test_autospec_no_warnings': 'failed',
      'tests/test_cachedmethod.py::CacheMethodTest::test_decorator': 'passed',
      'tests/test_cachedmethod.py::WeakRefMethodTest::test_weakref': 'passed',
      'tests/test_cachedmethod.py::NoneMethodTest::test_none_info': 'passed',
    });
    expect(Object.values(good.gold!).every((s) => s === 'passed')).toBe(true);
    expect(good.environment!.key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("grades with the machine's cores (up to 4), as the harness's unlimited container would", () => {
    const db = new Database(join(out, 'ledger.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT limits FROM executions').all() as Array<{ limits: string }>;
      expect(rows.length).toBeGreaterThanOrEqual(4);
      const cpus = rows.map((r) => (JSON.parse(r.limits) as { cpus: number }).cpus);
      expect(new Set(cpus)).toEqual(new Set([Math.min(availableParallelism(), 4)]));
    } finally {
      db.close();
    }
  });

  it('refuses a malformed set before touching the engine, with the line and field', async () => {
    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, '{"instance_id": "x"}\n');
    await expect(capture(['--bench', bad, '--repos', join(FIXTURES, 'repos'), '--out', out])).rejects.toThrow(
      /line 1 \(instance x\): repo: /,
    );
  });
});
