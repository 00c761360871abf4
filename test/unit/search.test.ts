// read_entity, search_symbol and search_code over real fixture repos and a real ledger file: the
// ranking tiers, keywords, caps, windows, errors, dense retrieval and its fallback, and the
// evidence rows each read and search writes for the edit gate.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CodeIndex } from '../../primitives/index/code-index.js';
import type { Embedder, ReadContext } from '../../primitives/read-context.js';
import { readEntity } from '../../primitives/tools/read-entity/effect.js';
import { searchCode } from '../../primitives/tools/search-code/effect.js';
import { searchSymbol } from '../../primitives/tools/search-symbol/effect.js';
import { evidenceFor, hasEvidence, recordEvidence } from '../../runtime/ledger/evidence.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { packageRoot } from '../../runtime/package-root.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { dispatchCall } from '../../runtime/ledger/calls.js';

const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'repos');
const temps: string[] = [];
const ledgers: Ledger[] = [];

afterEach(() => {
  vi.unstubAllEnvs();
  for (const l of ledgers.splice(0)) l.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function open(fixture: string): Promise<{ ctx: ReadContext; root: string; ledger: Ledger }> {
  const dir = mkdtempSync(join(tmpdir(), 'piper-search-'));
  temps.push(dir);
  const root = join(dir, fixture);
  cpSync(join(FIXTURES, fixture), root, { recursive: true });
  const ledger = Ledger.open(join(dir, 'ledger.db'));
  ledgers.push(ledger);
  return { ctx: { index: await CodeIndex.open(root, ledger) }, root, ledger };
}

async function symbols(ctx: ReadContext, query: string, extra: { keywords?: string[]; k?: number } = {}) {
  const r = await searchSymbol(ctx, { query, ...extra });
  expect(r.error).toBeNull();
  return r.data!.matches.map((m) => m.selector);
}

describe('search_symbol', () => {
  it('ranks exact qualified name, exact name, suffix, substring, then fuzzy', async () => {
    const { ctx } = await open('packages');
    expect(await symbols(ctx, 'remember')).toEqual([
      'repo.notes.remember', // exact qualified name (a top-level function)
      'legacy.memstore.MemStore.remember', // exact name, ties by selector
      'repo.memstore.MemStore.remember',
      'repo.notes.must_remember', // the selector ends with the query
      'repo.memstore.MemStore.remember_all', // the selector contains it
      'repo.memstore.MemStore.store', // only the signature holds it (a parameter)
    ]);
  });

  it('finds a dotted query by selector suffix, and the full selector first of all', async () => {
    const { ctx } = await open('packages');
    const dotted = await symbols(ctx, 'memstore.MemStore.remember');
    expect(dotted.slice(0, 2)).toEqual([
      'legacy.memstore.MemStore.remember',
      'repo.memstore.MemStore.remember',
    ]);
    // The rest are fuzzy: they hold "remember", ranked by how many query tokens they share.
    expect(dotted[2]).toBe('repo.memstore.MemStore.remember_all');
    expect(dotted).toContain('repo.notes.remember');
    expect((await symbols(ctx, 'repo.memstore.MemStore.remember'))[0]).toBe(
      'repo.memstore.MemStore.remember',
    );
    expect((await symbols(ctx, 'MemStore.remember')).slice(0, 2)).toEqual([
      'legacy.memstore.MemStore.remember',
      'repo.memstore.MemStore.remember',
    ]);
  });

  it('matches case-insensitively, preferring the exact case', async () => {
    const { ctx } = await open('srclayout');
    expect(await symbols(ctx, 'calc')).toEqual(['src.calc', 'src.calc.ops.Calc']);
    expect(await symbols(ctx, 'Calc')).toEqual(['src.calc.ops.Calc', 'src.calc']);
  });

  it('every match holds the last query token in its name + signature', async () => {
    const { ctx } = await open('flat');
    for (const query of ['area', 'Shape.label', 'self', 'float', 'shapes.outer.inner', 'grüße', 'x']) {
      const r = await searchSymbol(ctx, { query });
      const token = query
        .split(/[.\s]+/)
        .at(-1)!
        .toLowerCase();
      expect(r.ok).toBe(true);
      for (const m of r.data!.matches) {
        const name = m.selector.split('.').at(-1)!;
        expect(`${name} ${m.signature}`.toLowerCase()).toContain(token);
      }
    }
    expect(await symbols(ctx, 'grüße')).toEqual(['i18n.grüße']);
  });

  it('narrows by keywords, caps at k, and returns the declared fields only', async () => {
    const { ctx } = await open('packages');
    expect(await symbols(ctx, 'remember', { keywords: ['legacy'] })).toEqual([
      'legacy.memstore.MemStore.remember',
    ]);
    // keywords are matched in the docstring too, and all of them must hold
    expect(await symbols(ctx, 'remember', { keywords: ['memory', 'key'] })).toEqual([
      'repo.memstore.MemStore.remember',
    ]);
    expect(await symbols(ctx, 'remember', { keywords: ['nowhere'] })).toEqual([]);
    expect(await symbols(ctx, 'remember', { k: 2 })).toHaveLength(2);
    const r = await searchSymbol(ctx, { query: 'put' });
    expect(r.data!.matches).toEqual([
      {
        selector: 'repo.cache.lru.LRUCache.put',
        kind: 'method',
        signature: 'def put(self, key, value):',
        path: 'repo/cache/lru.py',
        line: 18,
      },
    ]);
  });

  it('refuses bad arguments with precise errors', async () => {
    const { ctx } = await open('packages');
    expect((await searchSymbol(ctx, { query: '  ' })).error).toMatch(/^empty query/);
    expect((await searchSymbol(ctx, { query: 'x', k: 0 })).error).toBe(
      'invalid arg: k (expected int 1..10, got 0)',
    );
    expect((await searchSymbol(ctx, { query: 'x', k: 11 })).error).toBe(
      'invalid arg: k (expected int 1..10, got 11)',
    );
    expect((await searchSymbol(ctx, { query: 'x', keywords: [1 as unknown as string] })).error).toBe(
      'invalid arg: keywords (expected list[str])',
    );
  });

  it('gives the same order for the same repo and query', async () => {
    const a = await open('flat');
    const b = await open('flat');
    for (const query of ['a', 'e', 'self', 'def']) {
      expect(await symbols(a.ctx, query)).toEqual(await symbols(b.ctx, query));
    }
  });
});

describe('read_entity', () => {
  it('returns the entity, and its source lines on request', async () => {
    const { ctx } = await open('srclayout');
    const bare = await readEntity(ctx, { selector: 'src.calc.ops.Calc.add' });
    expect(bare.ok).toBe(true);
    expect(bare.data!.body).toBeNull();
    expect(bare.data!.entity).toMatchObject({
      selector: 'src.calc.ops.Calc.add',
      startLine: 10,
      endLine: 13,
    });

    const full = await readEntity(ctx, { selector: 'src.calc.ops.Calc.add', body: true });
    expect(full.data!.body).toBe(
      [
        '    def add(self, a: int, b: int) -> int:',
        '        """Add two integers."""',
        '        self.last = a + b',
        '        return self.last',
      ].join('\n'),
    );
  });

  it('cuts the body at window lines and says so', async () => {
    const { ctx } = await open('flat');
    const r = await readEntity(ctx, { selector: 'shapes.Shape', body: true, window: 3 });
    expect(r.data!.body).toBe(
      '@register("shape")\nclass Shape:\n    """Base class of every shape."""\n... [cut: 3 of 32 lines shown]',
    );
    const whole = await readEntity(ctx, { selector: 'calc.add', body: true, window: 3 });
    expect(whole.data!.body).not.toContain('[cut:');
  });

  it('names an unknown selector precisely, with near ones', async () => {
    const { ctx } = await open('srclayout');
    const r = await readEntity(ctx, { selector: 'src.calc.ops.Calc.ad' });
    expect(r).toMatchObject({ ok: false, data: null });
    expect(r.error).toBe(
      'unknown selector src.calc.ops.Calc.ad: no entity in the index has it; did you mean src.calc.ops.Calc.add?',
    );
    expect((await readEntity(ctx, { selector: 'nothing.like.it' })).error).toBe(
      'unknown selector nothing.like.it: no entity in the index has it; search_symbol finds selectors by name',
    );
    expect((await readEntity(ctx, { selector: 'src.calc', window: 0 })).error).toBe(
      'invalid arg: window (expected int 1..100, got 0)',
    );
  });

  it('says which definition a duplicated selector reads', async () => {
    const { ctx } = await open('flat');
    const r = await readEntity(ctx, { selector: 'dupes.handler', body: true });
    expect(r.data!.entity.startLine).toBe(12);
    expect(r.data!.body).toContain('return "second"');
    expect(r.data!.note).toBe(
      'dupes.handler is defined 2 times; this is the last definition (line 12 of dupes.py), the one Python binds',
    );
  });

  it('reads the file as it is on disk now, even if it changed after indexing', async () => {
    const { ctx, root } = await open('srclayout');
    const ops = join(root, 'src/calc/ops.py');
    writeFileSync(ops, `# a new first line\n${readFileSync(ops, 'utf8')}`);
    const r = await readEntity(ctx, { selector: 'src.calc.ops.Calc.add', body: true });
    expect(r.data!.entity.startLine).toBe(11);
    expect(r.data!.body!.split('\n')[0]).toBe('    def add(self, a: int, b: int) -> int:');
    writeFileSync(ops, 'X = 1\n');
    expect((await readEntity(ctx, { selector: 'src.calc.ops.Calc.add' })).error).toBe(
      'unknown selector src.calc.ops.Calc.add: src/calc/ops.py changed on disk and no longer defines it',
    );
  });
});

describe('search_code', () => {
  it('ranks by BM25 over names, docstrings and body names, summaries only', async () => {
    const { ctx } = await open('packages');
    const r = await searchCode(ctx, { query: 'store a fact in memory' });
    expect(r.ok).toBe(true);
    expect(r.data!.retrieval).toBe('lexical');
    expect(r.data!.note).toBeUndefined();
    expect(r.data!.results[0]!.selector).toBe('repo.memstore.MemStore.remember');
    expect(r.data!.results.length).toBeLessThanOrEqual(8);
    for (const res of r.data!.results)
      expect(Object.keys(res).sort()).toEqual(['doc', 'score', 'selector', 'signature']);
    const scores = r.data!.results.map((x) => x.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(r.data!.results[0]).toMatchObject({
      signature: 'def remember(self, key, fact):',
      doc: 'Store a fact in memory under a key.',
    });
  });

  it('splits camelCase and snake_case, and reads names used in bodies', async () => {
    const { ctx } = await open('flat');
    const top = async (query: string) => (await searchCode(ctx, { query })).data!.results[0]!.selector;
    expect(await top('fetch json')).toBe('http_client.HTTPClient.fetchJSON');
    expect(await top('http header')).toBe('http_client.parse_http_header');
    expect(await top('sha256 hexdigest')).toBe('http_client.checksum');
    expect(await top('lru_cache')).toBe('shapes.Shape.unit_area');
  });

  it('follows refresh: new entities are found, removed ones are not', async () => {
    const { ctx, root } = await open('srclayout');
    expect((await searchCode(ctx, { query: 'zebra stripes' })).data!.results).toEqual([]);
    const ops = join(root, 'src/calc/ops.py');
    const added = '\n\ndef count_stripes(zebra):\n    """Count the stripes of a zebra."""\n    return 0\n';
    writeFileSync(ops, `${readFileSync(ops, 'utf8')}${added}`);
    await ctx.index.refresh(['src/calc/ops.py']);
    const found = (await searchCode(ctx, { query: 'zebra stripes' })).data!.results;
    expect(found[0]!.selector).toBe('src.calc.ops.count_stripes');
    writeFileSync(ops, 'X = 1\n');
    await ctx.index.refresh(['src/calc/ops.py']);
    const after = (await searchCode(ctx, { query: 'zebra stripes add integers' })).data!.results;
    expect(after.map((r) => r.selector).filter((s) => s.startsWith('src.calc.ops.'))).toEqual([]);
  });

  it('caps the results and refuses bad arguments', async () => {
    const { ctx } = await open('flat');
    expect((await searchCode(ctx, { query: 'shape area', cap: 2 })).data!.results).toHaveLength(2);
    expect((await searchCode(ctx, { query: 'shape', cap: 9 })).error).toBe(
      'invalid arg: cap (expected int 1..8, got 9)',
    );
    expect((await searchCode(ctx, { query: ' ' })).error).toMatch(/^empty query/);
    expect((await searchCode(ctx, { query: 'zzzqqq' })).data!.results).toEqual([]);
  });

  it('uses dense retrieval only when asked and an embedder is given', async () => {
    const { ctx } = await open('packages');
    const calls: string[][] = [];
    // Two dimensions that an entity text either mentions or not: "cache" and "fact".
    const embedder: Embedder = {
      embed: async (texts) => {
        calls.push(texts);
        return texts.map((t) => [/cache/i.test(t) ? 1 : 0, /fact/i.test(t) ? 1 : 0, 0.1]);
      },
    };
    const off = await searchCode({ ...ctx, embedder }, { query: 'cache' });
    expect(off.data!.retrieval).toBe('lexical');
    expect(calls).toHaveLength(0);

    // The RETRIEVE variable is the config's business: the primitive follows only what it is given.
    vi.stubEnv('RETRIEVE', 'embed');
    const stillOff = await searchCode({ ...ctx, embedder }, { query: 'cache' });
    expect(stillOff.data!.retrieval).toBe('lexical');
    expect(calls).toHaveLength(0);

    const on = await searchCode({ ...ctx, embedder, retrieve: 'embed' }, { query: 'cache', cap: 3 });
    expect(on.data!.retrieval).toBe('embed');
    expect(on.data!.note).toBeUndefined();
    expect(on.data!.results).toHaveLength(3);
    for (const r of on.data!.results) expect(r.selector).toMatch(/^repo\.cache/);
    expect(on.data!.results.map((r) => r.selector)).toEqual(
      [...on.data!.results.map((r) => r.selector)].sort(),
    );
    // Entity vectors are cached by text: a second query embeds only the query.
    const before = calls.length;
    await searchCode({ ...ctx, embedder, retrieve: 'embed' }, { query: 'fact' });
    expect(calls.length).toBe(before + 1);
  });

  it('falls back to lexical with a note when the embedder fails or is missing', async () => {
    const { ctx } = await open('packages');
    const failing: Embedder = {
      embed: async () => {
        throw new Error('HTTP 503 from the embeddings endpoint');
      },
    };
    const r = await searchCode({ ...ctx, embedder: failing, retrieve: 'embed' }, { query: 'store a fact' });
    expect(r.ok).toBe(true);
    expect(r.data!.retrieval).toBe('lexical');
    expect(r.data!.note).toBe(
      'embedding retrieval failed (HTTP 503 from the embeddings endpoint): lexical results',
    );
    expect(r.data!.results).toEqual((await searchCode(ctx, { query: 'store a fact' })).data!.results);

    const short: Embedder = { embed: async () => [[1, 0]] };
    const bad = await searchCode({ ...ctx, embedder: short, retrieve: 'embed' }, { query: 'fact' });
    expect(bad.data!.note).toMatch(
      /^embedding retrieval failed \(the embedder returned 1 vectors for \d+ texts\)/,
    );

    const none = await searchCode({ ...ctx, retrieve: 'embed' }, { query: 'fact' });
    expect(none.data).toMatchObject({
      retrieval: 'lexical',
      note: 'RETRIEVE=embed, but no embeddings endpoint is configured: lexical results',
    });
  });
});

describe('evidence', () => {
  it('is written for every selector a read or search returns, with the call', async () => {
    const { ctx: base, ledger } = await open('packages');
    const runId = createRun(ledger, { kind: 'fix', repo: base.index.root, owner: 'test' });
    const callId = dispatchCall(ledger, {
      runId,
      tool: 'search_symbol',
      args: {},
      origin: 'model',
      owner: 'test',
    });
    const ctx: ReadContext = { ...base, ledger, runId, callId };

    const found = await searchSymbol(ctx, { query: 'MemStore.remember' });
    const cited = found.data!.matches.map((m) => m.selector);
    expect(evidenceFor(ledger, runId)).toEqual(cited);
    const rows = ledger.database
      .prepare('SELECT call_id FROM evidence WHERE run_id = ?')
      .all(runId) as Array<{
      call_id: string;
    }>;
    expect(rows.every((r) => r.call_id === callId)).toBe(true);

    await readEntity({ ...ctx, callId: undefined }, { selector: 'repo.cache.lru.LRUCache' });
    const code = await searchCode({ ...ctx, callId: undefined }, { query: 'evict oldest entry', cap: 2 });
    expect(hasEvidence(ledger, runId, 'repo.cache.lru.LRUCache')).toBe(true);
    for (const r of code.data!.results) expect(hasEvidence(ledger, runId, r.selector)).toBe(true);
    expect(hasEvidence(ledger, runId, 'repo.version')).toBe(false);
    // A failed read cites nothing.
    await readEntity(ctx, { selector: 'repo.nope' });
    expect(hasEvidence(ledger, runId, 'repo.nope')).toBe(false);
    // Without a run, nothing is written.
    const count = () =>
      (ledger.database.prepare('SELECT COUNT(*) AS n FROM evidence').get() as { n: number }).n;
    const n = count();
    await readEntity(base, { selector: 'repo.version' });
    expect(count()).toBe(n);
  });

  it('refuses a run the ledger does not have, as a value', async () => {
    const { ctx, ledger } = await open('packages');
    const r = await readEntity({ ...ctx, ledger, runId: 'r-missing' }, { selector: 'repo.version' });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^cannot record evidence for run r-missing/);
    let thrown: unknown;
    try {
      recordEvidence(ledger, { runId: 'r-missing', selectors: ['x'] });
    } catch (error) {
      thrown = error;
    }
    expect(isRuntimeError(thrown, 'ledger_error')).toBe(true);
  });
});
