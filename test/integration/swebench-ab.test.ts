// `piper-agent ab --bench X.jsonl --repos DIR --model sim:1` end to end on the real cachetools
// instances (test/fixtures/swebench): the runner validates the set itself (the docstring-only
// instance is reported invalid with its reason, never as unresolved), runs both arms on the valid
// ones in the real sandbox, and grades them by the test patch's tests with per-test results in
// report.json. The agent never sees the test patch or the gold patch: none of its first prompts
// holds a line of either, and no prompt at all holds the test patch. --concurrency 2 gives the
// report --concurrency 1 gives (but run ids and times), and an interrupted run resumes.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
import { abCommand } from '../../eval/commands/ab.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft } from '../helpers/sandbox.js';

const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'swebench');
const BENCH = join(FIXTURES, 'instances.jsonl');
const VALID = ['tkem__cachetools-130', 'tkem__cachetools-387'];

async function ab(args: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await abCommand(args);
    return { code, stderr: lines.join('') };
  } finally {
    spy.mockRestore();
  }
}

const args = (out: string, concurrency: number) => [
  '--bench',
  BENCH,
  '--repos',
  join(FIXTURES, 'repos'),
  '--model',
  'sim:1',
  '--out',
  out,
  '--concurrency',
  String(concurrency),
];

const readReport = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AbReport;

const stable = (r: AbReport) => ({
  ...r,
  instances: r.instances.map((i) => ({ ...i, run_id: '', judge_run_id: '', wall_s: 0 })),
});

/** Every prompt text of every fix run, and each run's first prompt, from the ledger's prompt parts. */
function prompts(out: string): { all: string[]; first: string[] } {
  const ledger = Ledger.open(join(out, 'ledger.db'));
  try {
    const db = ledger.database;
    const parts = new Map(
      (
        db.prepare(`SELECT sha256, body FROM prompt_parts`).all() as Array<{ sha256: string; body: Buffer }>
      ).map((p) => [p.sha256, gunzipSync(p.body).toString('utf8')]),
    );
    const turns = db
      .prepare(`SELECT run_id, prompt FROM turns WHERE prompt IS NOT NULL ORDER BY id`)
      .all() as Array<{ run_id: string; prompt: string }>;
    const text = (prompt: string) =>
      (JSON.parse(prompt) as { messages: Array<{ parts: string[] }> }).messages
        .flatMap((m) => m.parts.map((h) => parts.get(h) ?? ''))
        .join('');
    const seen = new Set<string>();
    const first: string[] = [];
    for (const t of turns) {
      if (seen.has(t.run_id)) continue;
      seen.add(t.run_id);
      first.push(text(t.prompt));
    }
    return { all: turns.map((t) => text(t.prompt)), first };
  } finally {
    ledger.close();
  }
}

/** The lines a patch adds or removes, long enough to be its own (not a blank or a bracket). */
function patchLines(patch: string): string[] {
  return patch
    .split('\n')
    .filter((l) => /^[+-][^+-]/.test(l))
    .map((l) => l.slice(1).trim())
    .filter((l) => l.length >= 20);
}

describe('piper-agent ab on SWE-bench-format instances (real sandbox, sim:1)', () => {
  const one = mkdtempSync(join(tmpdir(), 'piper-swe-ab-1-'));
  const two = mkdtempSync(join(tmpdir(), 'piper-swe-ab-2-'));
  let report: AbReport;

  beforeAll(async () => {
    const { code, stderr } = await ab(args(two, 2));
    expect(stderr).toMatch(/4 instance\(s\) run, 0 read back/);
    expect(code).toBe(0);
    report = readReport(two);
  }, 1_800_000);

  afterAll(async () => {
    await expectNoContainersLeft();
  });

  it('runs both arms on the valid instances and reports the invalid one with its reason', () => {
    expect([...new Set(report.instances.map((i) => i.task))].sort()).toEqual(VALID);
    expect(report.instances).toHaveLength(4);
    expect(report.invalid).toEqual([
      {
        instance: 'tkem__cachetools-130-docstring-only',
        reason: expect.stringContaining('the gold patch does not resolve it'),
      },
    ]);
    for (const arm of ['policy', 'current'] as const) expect(report.measures[arm]!.instances).toBe(2);
    expect(readFileSync(join(two, 'report.md'), 'utf8')).toMatch(/## Invalid instances[\s\S]*docstring-only/);
  });

  it('grades by the FAIL_TO_PASS and PASS_TO_PASS tests, with each test in report.json', () => {
    const byId = new Map(loadInstances(BENCH).map((i) => [i.instance_id, i]));
    for (const i of report.instances) {
      const instance = byId.get(i.task)!;
      expect(Object.keys(i.tests).sort()).toEqual(
        [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].sort(),
      );
      const all = Object.values(i.tests).every((s) => s === 'passed');
      expect(i.resolved).toBe(all);
      expect(i.fail_to_pass.total).toBe(instance.FAIL_TO_PASS.length);
    }
    expect(report.instances.some((i) => i.resolved)).toBe(true);
  });

  it('never shows the agent the test patch or the gold patch', () => {
    const [a, b] = loadInstances(BENCH);
    const { all, first } = prompts(two);
    expect(first.length).toBe(4);
    for (const instance of [a!, b!]) {
      for (const line of patchLines(instance.test_patch)) for (const p of all) expect(p).not.toContain(line);
      for (const line of patchLines(instance.patch)) for (const p of first) expect(p).not.toContain(line);
    }
  });

  it('--concurrency 1 gives the same report, and an interrupted run resumes where it stopped', async () => {
    mkdirSync(one, { recursive: true });
    // The validations of the first run are reused: keyed by each instance's content.
    copyFileSync(join(two, 'validation.json'), join(one, 'validation.json'));
    const first = await ab(args(one, 1));
    expect(first.code).toBe(0);
    expect(stable(readReport(one))).toEqual(stable(report));
    // An instance whose row was never written (the process died before its judgement was recorded).
    const ledger = Ledger.open(join(one, 'ledger.db'));
    ledger.database.prepare(`DELETE FROM ab_instances WHERE arm = 'policy' AND task_id = ?`).run(VALID[1]);
    ledger.close();
    const again = await ab(args(one, 1));
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/1 instance\(s\) run, 3 read back/);
    expect(stable(readReport(one))).toEqual(stable(report));
  }, 1_800_000);
});
