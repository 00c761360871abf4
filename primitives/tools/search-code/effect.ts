// search_code (docs/policy.md, "The tool registry"): summaries of the entities most related to a
// query — selector, signature, first docstring line, score — never bodies, at most `cap`. Lexical
// BM25 by default; dense retrieval (cosine over embeddings of the entities) only when the caller
// asks for it (the `retrieve: embed` setting) and injects an embedder. If the embedder fails, the
// lexical results answer and a note says why.
import type { CodeIndex } from '../../index/code-index.js';
import { citeEvidence, intArg, type Embedder, type ReadContext } from '../../read-context.js';
import type { CodeResult, SearchCodeResult } from '../../results/read-results.js';
import type { Entity, Envelope } from '../../types.js';
import { cosine } from '../../search/cosine.js';

export interface SearchCodeArgs {
  query: string;
  /** How many results, 1..8 (default 8). */
  cap?: number;
}

/** Texts per embeddings request: large enough to be quick, small enough for any server. */
const EMBED_BATCH = 64;

export async function searchCode(
  ctx: ReadContext,
  args: SearchCodeArgs,
): Promise<Envelope<SearchCodeResult>> {
  const fail = (error: string) => ({ ok: false, error, data: null });
  if (typeof args.query !== 'string') return fail('invalid arg: query (expected str)');
  const query = args.query.trim();
  if (query === '') return fail('empty query: describe the code to look for');
  const cap = args.cap ?? 8;
  const capError = intArg('cap', cap, 1, 8);
  if (capError) return fail(capError);

  const mode = ctx.retrieve ?? 'lexical';
  let data: SearchCodeResult | undefined;
  let note: string | undefined;
  if (mode === 'embed') {
    if (!ctx.embedder) {
      note = 'RETRIEVE=embed, but no embeddings endpoint is configured: lexical results';
    } else {
      try {
        data = { results: await denseSearch(ctx.index, ctx.embedder, query, cap), retrieval: 'embed' };
      } catch (error) {
        note = `embedding retrieval failed (${(error as Error).message}): lexical results`;
      }
    }
  }
  if (!data) {
    const results = ctx.index
      .lexicalSearch(query)
      .slice(0, cap)
      .map((s) => summary(s.entity, s.score));
    data = note ? { results, retrieval: 'lexical', note } : { results, retrieval: 'lexical' };
  }
  const evidenceError = citeEvidence(
    ctx,
    data.results.map((r) => r.selector),
  );
  if (evidenceError) return fail(evidenceError);
  return { ok: true, error: null, data };
}

function summary(entity: Entity, score: number): CodeResult {
  return {
    selector: entity.selector,
    signature: entity.signature,
    doc: entity.doc,
    score: Math.round(score * 1e4) / 1e4,
  };
}

/** Vectors already fetched, per embedder, keyed by the exact text (an edited entity embeds anew). */
const vectorCache = new WeakMap<Embedder, Map<string, number[]>>();

async function denseSearch(
  index: CodeIndex,
  embedder: Embedder,
  query: string,
  cap: number,
): Promise<CodeResult[]> {
  let cache = vectorCache.get(embedder);
  if (!cache) vectorCache.set(embedder, (cache = new Map()));
  const entities = index.visible();
  const texts = entities.map((e) => index.searchText(e));
  const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
  for (let i = 0; i < missing.length; i += EMBED_BATCH) {
    const batch = missing.slice(i, i + EMBED_BATCH);
    const vectors = checkVectors(await embedder.embed(batch), batch.length);
    batch.forEach((t, j) => cache.set(t, vectors[j]!));
  }
  const [queryVector] = checkVectors(await embedder.embed([query]), 1);
  const scored = entities.map((entity, i) => ({
    entity,
    score: cosine(queryVector!, cache.get(texts[i]!)!),
  }));
  scored.sort((a, b) => b.score - a.score || (a.entity.selector < b.entity.selector ? -1 : 1));
  return scored.slice(0, cap).map((s) => summary(s.entity, s.score));
}

function checkVectors(vectors: unknown, expected: number): number[][] {
  if (!Array.isArray(vectors) || vectors.length !== expected) {
    throw new Error(
      `the embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${expected} texts`,
    );
  }
  for (const v of vectors) {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error('the embedder returned a vector that is not a non-empty list of numbers');
    }
  }
  return vectors as number[][];
}
