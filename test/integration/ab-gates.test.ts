// `piper-agent ab --gate-ablation` end to end with the real sandbox and the simulated model: the
// policy arm runs once more per named gate with that gate off (its own arm key in the ledger), and
// report.json carries each gate's measures, its five deltas against the full policy arm and the
// ablation rule's verdict; a second run reads every instance back and writes the same report.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AbReport } from '../../eval/ab/report.js';
import { abCommand } from '../../eval/commands/ab.js';
import { loadConfig } from '../../core/config.js';
import { embedRetrievalConfigured } from '../../core/fix/run-fix.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft } from '../helpers/sandbox.js';

const BENCH = join(packageRoot(), 'eval', 'tasks', 'piperbench');
const TASKS = ['pb-001-offbyone-page-count', 'pb-017-symbol-version-order'];
const GATES = ['trust_round_trip_search_symbol', 'evidence_gate'];

async function ab(args: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  // The gate ablation is what these tests check, not where packages come from: the task projects'
  // environments are built from Debian's packages, as before the index was reachable.
  vi.stubEnv('PIPER_SOURCES', 'debian');
  try {
    return { code: await abCommand(args), stderr: lines.join('') };
  } finally {
    spy.mockRestore();
    vi.unstubAllEnvs();
  }
}

const ARGS = (out: string) => [
  '--bench',
  BENCH,
  '--model',
  'sim:1',
  '--out',
  out,
  '--tasks',
  TASKS.join(','),
  '--concurrency',
  '2',
  '--gate-ablation',
  // Given out of order and with the not-applicable embed fallback: the report follows the spec's order.
  ['evidence_gate', 'retrieval_embed_fallback', 'trust_round_trip_search_symbol'].join(','),
];

describe('piper-agent ab --gate-ablation (real sandbox, sim:1)', () => {
  const out = mkdtempSync(join(tmpdir(), 'piper-ab-gates-'));
  let first: AbReport;
  let firstJson: string;
  let firstStderr: string;

  beforeAll(async () => {
    const { code, stderr } = await ab(ARGS(out));
    firstStderr = stderr;
    expect(code).toBe(0);
    firstJson = readFileSync(join(out, 'report.json'), 'utf8');
    first = JSON.parse(firstJson) as AbReport;
  }, 300_000);

  afterAll(async () => {
    await expectNoContainersLeft();
  });

  it('runs each ablated variant as its own arm key on the same tasks', () => {
    // 2 tasks × (policy, current, and the two applicable gates).
    expect(firstStderr).toMatch(/8 instance\(s\) run, 0 read back/);
    const ledger = Ledger.open(join(out, 'ledger.db'));
    try {
      const rows = ledger.database
        .prepare(`SELECT arm, COUNT(*) AS n FROM ab_instances GROUP BY arm ORDER BY arm`)
        .all() as Array<{ arm: string; n: number }>;
      expect(rows).toEqual([
        { arm: 'current', n: 2 },
        { arm: 'policy', n: 2 },
        { arm: 'policy-no-evidence_gate', n: 2 },
        { arm: 'policy-no-trust_round_trip_search_symbol', n: 2 },
      ]);
    } finally {
      ledger.close();
    }
  });

  it('reports every gate with its measures, five deltas against the full policy arm, and a verdict', () => {
    const section = first.ablation_gates!;
    expect(section.full).toBe('policy');
    expect(section.gates.map((g) => g.gate)).toEqual([
      'trust_round_trip_search_symbol',
      'retrieval_embed_fallback',
      'evidence_gate',
    ]);
    for (const gate of section.gates.filter((g) => GATES.includes(g.gate))) {
      expect(gate.arm).toBe(`policy-no-${gate.gate}`);
      expect(gate.missing).toEqual([]);
      expect(gate.instances.map((i) => i.task)).toEqual(TASKS);
      expect(gate.measures!.instances).toBe(2);
      expect(gate.deltas.map((d) => d.measure)).toEqual([
        'resolve',
        'cost',
        'tokens',
        'call_precision',
        'selection_accuracy',
      ]);
      const full = first.measures.policy!;
      const resolve = gate.deltas[0]!;
      expect(resolve.full).toBe(full.resolveRate.value);
      expect(resolve.ablated).toBe(gate.measures!.resolveRate.value);
      expect(resolve.delta).toBeCloseTo(resolve.ablated! - resolve.full!, 12);
      // Without --ablation call precision is not measured: its delta is unknown, so no gate can be
      // shown deletable — kept, either because a measure moved or because "no change" is not shown.
      expect(gate.deltas[3]).toMatchObject({ delta: null, withinNoise: null });
      expect(['keep', 'keep_unmeasured']).toContain(gate.verdict);
      expect(gate.verdict === 'keep').toBe(gate.deltas.some((d) => d.withinNoise === false));
      expect(gate.reason).toMatch(new RegExp(`^keep ${gate.gate}`));
    }
    if (!embedRetrievalConfigured(loadConfig({ repo: process.cwd() }).config)) {
      expect(section.gates[1]).toMatchObject({ verdict: 'not_applicable', measures: null, deltas: [] });
      expect(section.gates[1]!.reason).toMatch(/^not applicable here/);
    }
    expect(firstStderr).toMatch(/gate evidence_gate: keep/);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(
      /## Gate ablation[\s\S]*\| trust_round_trip_search_symbol \| policy-no-trust_round_trip_search_symbol \|/,
    );
  });

  it('a second run reads every variant back from the ledger and writes the same report', async () => {
    const { code, stderr } = await ab(ARGS(out));
    expect(code).toBe(0);
    expect(stderr).toMatch(/0 instance\(s\) run, 8 read back/);
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe(firstJson);
  }, 60_000);
});
