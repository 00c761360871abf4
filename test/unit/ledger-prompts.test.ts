import { afterEach, describe, expect, it } from 'vitest';
import { buildSelectionPrompt, promptDigest } from '../../policy/prompt.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { loadPrompt, promptParts, promptStorage } from '../../runtime/ledger/prompts.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { insertRunRows, runRows } from '../../runtime/ledger/run-rows.js';
import { createRun, getRun } from '../../runtime/ledger/runs.js';

const ISSUE = 'Calc.add returns a - b instead of a + b.\n\nSee src.calc.ops.Calc.add.\n'.repeat(20);

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

function record(): RunRecord {
  ledger = Ledger.open(':memory:');
  const runId = createRun(ledger, { kind: 'fix', repo: '/repo', owner: 'test', issue: ISSUE });
  return new RunRecord(ledger, runId, 'test');
}

function turn(r: RunRecord, n: number, protocol: 'json' | 'tools' = 'json') {
  const prompt = buildSelectionPrompt({
    protocol,
    tools: ['read_entity', 'search_symbol'],
    history: Array.from({ length: n }, (_, i) => ({ kind: 'read', target: `m${i}`, result: `body ${i}` })),
    latestObservation: n
      ? JSON.stringify({ kind: 'read', target: `m${n}`, ok: true, data: { body: 'x' } })
      : null,
    issueText: ISSUE,
    boundary: r.promptBoundary,
  });
  const id = r.startTurn({
    toolset: ['read_entity', 'search_symbol'],
    promptDigest: prompt.digest,
    promptTokens: prompt.tokens,
    messages: prompt.messages,
    tools: prompt.tools,
  });
  return { id, prompt };
}

describe('the ledger keeps the prompts', () => {
  it('gives back each turn exactly as sent, so its recorded digest checks', () => {
    const r = record();
    for (const protocol of ['json', 'tools'] as const)
      for (let n = 0; n < 3; n++) {
        const { id, prompt } = turn(r, n, protocol);
        const stored = loadPrompt(r.ledger, id)!;
        expect(stored.messages).toEqual(prompt.messages);
        expect(stored.tools).toEqual(prompt.tools);
        expect(promptDigest(stored.messages, stored.tools)).toBe(prompt.digest);
      }
  });

  it('keeps the run boundary on the run row: the same for every turn and every reader', () => {
    const r = record();
    const again = new RunRecord(r.ledger, r.runId, 'another process');
    expect(again.promptBoundary).toBe(r.promptBoundary);
    expect(r.promptBoundary).toMatch(/^[0-9a-f]{32}$/);
    expect((getRun(r.ledger, r.runId) as { prompt_boundary: string }).prompt_boundary).toBe(r.promptBoundary);
  });

  it('gives a run recorded without a boundary one, once', () => {
    const r = record();
    r.ledger.database.prepare(`UPDATE runs SET prompt_boundary = NULL`).run();
    const first = new RunRecord(r.ledger, r.runId, 'x').promptBoundary;
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(new RunRecord(r.ledger, r.runId, 'y').promptBoundary).toBe(first);
  });

  it('stores what repeats once: 30 turns take a fraction of what they sent', () => {
    const r = record();
    for (let n = 0; n < 30; n++) turn(r, n);
    const size = promptStorage(r.ledger, r.runId);
    expect(size.turns).toBe(30);
    // The system message and the issue are stored once; each turn adds its state section.
    expect(size.storedBytes).toBeLessThan(size.sentBytes / 5);
  });

  it('cuts at section starts only, and the parts put back together are the text', () => {
    const text = '# Tools\na\n\n# State\nb\n\nLatest observation:\nc\n\n# Issue\nd\n\nparagraph';
    expect(promptParts(text)).toEqual([
      '# Tools\na',
      '\n\n# State\nb',
      '\n\nLatest observation:\nc',
      '\n\n# Issue\nd\n\nparagraph',
    ]);
    expect(promptParts(text).join('')).toBe(text);
    expect(promptParts('')).toEqual(['']);
  });

  it('an altered or missing part is an error, never a different prompt', () => {
    const r = record();
    const { id } = turn(r, 1);
    const db = r.ledger.database;
    const { sha256 } = db.prepare(`SELECT sha256 FROM prompt_parts LIMIT 1`).get() as { sha256: string };
    db.prepare(`UPDATE prompt_parts SET sha256 = 'gone' WHERE sha256 = ?`).run(sha256);
    expect(() => loadPrompt(r.ledger, id)).toThrow(/is missing/);
  });

  it('a turn recorded before prompts were kept has none', () => {
    const r = record();
    const id = r.startTurn({ toolset: [], promptDigest: 'd', promptTokens: 1 });
    expect(loadPrompt(r.ledger, id)).toBeNull();
  });

  it('travels with the run in an export (parts as base64) and reads back the same elsewhere', () => {
    const r = record();
    const sent = [turn(r, 0), turn(r, 1)];
    const copy = JSON.parse(JSON.stringify(runRows(r.ledger, r.runId))) as ReturnType<typeof runRows>;
    expect(copy.prompt_parts.length).toBeGreaterThan(0);
    const elsewhere = Ledger.open(':memory:');
    try {
      insertRunRows(elsewhere, copy);
      for (const t of sent) expect(loadPrompt(elsewhere, t.id)!.messages).toEqual(t.prompt.messages);
      const old = { ...copy } as Partial<typeof copy>;
      delete old.prompt_parts;
      const before = Ledger.open(':memory:');
      insertRunRows(before, { ...(old as typeof copy), prompt_parts: undefined as never });
      expect(() => loadPrompt(before, sent[0]!.id)).toThrow(/is missing/);
      before.close();
    } finally {
      elsewhere.close();
    }
  });
});
