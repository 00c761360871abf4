import { describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../../policy/registry.js';
import {
  DEFAULT_TOOLS,
  retrieveByMap,
  retrieveTools,
  toolDocument,
  type Embedder,
} from '../../policy/retrieve.js';

const map = (issueText: string, latestObservation = '') => retrieveByMap({ issueText, latestObservation });

describe('static relevance map (phase-4 cases)', () => {
  it('fix / patch → edit_entity is in the set', () => {
    expect(map('Please fix the rounding').tools).toContain('edit_entity');
    expect(map('needs a small PATCH').tools).toContain('edit_entity');
  });
  it('test / pytest → run_test is in the set', () => {
    expect(map('the test is red').tools).toContain('run_test');
    expect(map('Pytest says so').tools).toContain('run_test');
  });
  it('empty or irrelevant input → the default 4 observe-only tools', () => {
    for (const text of ['', 'hello world', 'ZZZ 123']) {
      const r = map(text);
      expect(r.tools).toEqual(['read_entity', 'search_symbol', 'search_code', 'run_test']);
      expect(r.source).toBe('default');
      expect(r.truncated).toBe(false);
    }
    expect(DEFAULT_TOOLS).toEqual(['read_entity', 'search_symbol', 'search_code', 'run_test']);
  });
  it('never returns more than 5 and carries truncated', () => {
    const r = map('read the function, search the code, fix it, run pytest, execute a script');
    expect(r.tools).toHaveLength(5);
    expect(r.truncated).toBe(true);
    expect(r.scores.every((s) => s.score >= 1)).toBe(true);
    const small = map('fix it');
    expect(small.tools.length).toBeLessThanOrEqual(5);
    expect(small).toHaveProperty('truncated', false);
  });
  it('ranks by score, then registry order', () => {
    // run_test: run, pytest, test = 3; edit_entity: fix, patch = 2; execute: run = 1.
    expect(map('fix the patch, then run pytest').tools).toEqual(['run_test', 'edit_entity', 'execute']);
    // search_symbol: search, symbol = 2 ; search_code: search = 1; a tie between equal scores keeps registry order.
    expect(map('search symbol').tools).toEqual(['search_symbol', 'search_code']);
    expect(map('update', 'verify').tools).toEqual(['edit_entity', 'run_test']);
  });
  it('counts each keyword once, case-insensitively, over issue + latest observation', () => {
    const r = map('FIX fix Fix', 'AssertionError in test_ops');
    const score = (tool: string) => r.scores.find((s) => s.tool === tool)!.score;
    expect(score('edit_entity')).toBe(1);
    expect(score('run_test')).toBe(2); // assert, test
    expect(r.scores.map((s) => s.tool)).toEqual(TOOL_NAMES);
  });
  it('is what retrieveTools returns by default (mode map)', async () => {
    expect(await retrieveTools({ issueText: 'fix it', latestObservation: '' })).toEqual(map('fix it'));
  });
});

/** A deterministic bag-of-words embedder over a fixed vocabulary, counting its calls. */
function wordEmbedder(): Embedder & { calls: string[][] } {
  const vocabulary = [
    'read',
    'search',
    'edit',
    'test',
    'execute',
    'code',
    'symbol',
    'signature',
    'fix',
    'pytest',
  ];
  const calls: string[][] = [];
  return {
    calls,
    async embed(texts) {
      calls.push(texts);
      return texts.map((text) =>
        vocabulary.map((word) => (text.toLowerCase().includes(word) ? 1 : 0) + 0.01),
      );
    },
  };
}

describe('embedding retrieval (RETRIEVE=embed, off by default)', () => {
  it('ranks by cosine over description + keywords, top 5', async () => {
    const embedder = wordEmbedder();
    const r = await retrieveTools(
      { issueText: 'run pytest on the failing test', latestObservation: '' },
      { mode: 'embed', embedder },
    );
    expect(r.source).toBe('embed');
    expect(r.tools[0]).toBe('run_test');
    expect(r.tools).toHaveLength(5);
    expect(r.truncated).toBe(true);
    expect(embedder.calls[0]).toEqual(TOOL_NAMES.map(toolDocument));
  });
  it('embeds the tool documents once per embedder', async () => {
    const embedder = wordEmbedder();
    await retrieveTools({ issueText: 'a', latestObservation: '' }, { mode: 'embed', embedder });
    await retrieveTools({ issueText: 'b', latestObservation: '' }, { mode: 'embed', embedder });
    expect(embedder.calls.filter((texts) => texts.length === TOOL_NAMES.length)).toHaveLength(1);
  });
  it('falls back to the map with a note when the embedder throws or answers nonsense', async () => {
    const input = { issueText: 'fix the test', latestObservation: '' };
    const failing: Embedder = { embed: async () => Promise.reject(new Error('connection refused')) };
    const r = await retrieveTools(input, { mode: 'embed', embedder: failing });
    expect(r).toEqual({
      ...map('fix the test'),
      note: 'embedding retrieval failed (connection refused); used the keyword map',
    });
    const short: Embedder = { embed: async (texts) => texts.map(() => []) };
    const s = await retrieveTools(input, { mode: 'embed', embedder: short });
    expect(s.source).toBe('map');
    expect(s.note).toMatch(/^embedding retrieval failed \(vectors of length 0 and 0\)/);
    const none = await retrieveTools(input, { mode: 'embed' });
    expect(none.note).toBe('RETRIEVE=embed without an embedder; used the keyword map');
  });
});
