// search_symbol (docs/policy.md, "The tool registry"): signature-only matches for a name, best
// first. Tiers: exact qualified name (the selector, or the name inside its module), exact name,
// suffix (a dotted query such as `memstore.MemStore.remember` ends the selector), substring, then
// fuzzy (the query's last token is in the name or signature, ranked by how many query tokens the
// selector + signature hold). Matching ignores case, but an exact-case qualified name or name ranks
// above one that differs in case. Every match holds the last token in name + signature — the trust
// gate's round-trip check.
import { qualifiedName } from '../../index/selector.js';
import { citeEvidence, intArg, type ReadContext } from '../../read-context.js';
import type { SymbolMatch } from '../../results/read-results.js';
import type { Entity, Envelope } from '../../types.js';

export interface SearchSymbolArgs {
  query: string;
  /** Each keyword must appear (case-insensitive) in the selector, signature or docstring. */
  keywords?: string[];
  /** How many matches, 1..10 (default 10). */
  k?: number;
}

type MatchTier = 'exact' | 'name' | 'suffix' | 'substring' | 'fuzzy';

/** The rank of a fuzzy match that shares only the query's last token with the entity. */
export const FUZZY_LAST_TOKEN_ONLY = 6.5;

export interface RankedSymbol {
  entity: Entity;
  tier: MatchTier;
  /** Orders matches: lower is better (tier first, then shared query tokens for fuzzy ones). */
  rank: number;
}

export async function searchSymbol(
  ctx: ReadContext,
  args: SearchSymbolArgs,
): Promise<Envelope<{ matches: SymbolMatch[] }>> {
  const fail = (error: string) => ({ ok: false, error, data: null });
  if (typeof args.query !== 'string') return fail('invalid arg: query (expected str)');
  if (args.query.trim() === '') return fail('empty query: give a name or dotted name to look for');
  const kError = intArg('k', args.k ?? 10, 1, 10);
  if (kError) return fail(kError);
  const keywords = args.keywords ?? [];
  if (!Array.isArray(keywords) || !keywords.every((w) => typeof w === 'string')) {
    return fail('invalid arg: keywords (expected list[str])');
  }
  const ranked = rankSymbols(ctx.index.visible(), args.query, keywords).slice(0, args.k ?? 10);
  const matches = ranked.map(({ entity: e }) => ({
    selector: e.selector,
    kind: e.kind,
    signature: e.signature,
    path: e.path,
    line: e.startLine,
  }));
  const evidenceError = citeEvidence(
    ctx,
    matches.map((m) => m.selector),
  );
  if (evidenceError) return fail(evidenceError);
  return { ok: true, error: null, data: { matches } };
}

/** The ranking itself, pure: every entity that matches, best first, ties by selector. */
export function rankSymbols(entities: Entity[], query: string, keywords: string[] = []): RankedSymbol[] {
  const q = query.trim();
  const ql = q.toLowerCase();
  const tokens = ql.split(/[.\s]+/).filter(Boolean);
  const last = tokens[tokens.length - 1];
  if (!last) return [];
  const lastExact =
    q
      .split(/[.\s]+/)
      .filter(Boolean)
      .at(-1) ?? '';
  const wanted = keywords.map((w) => w.trim().toLowerCase()).filter(Boolean);

  const scored: Array<{ entity: Entity; tier: MatchTier; rank: number; caseExact: boolean }> = [];
  for (const e of entities) {
    const nameSig = `${e.name} ${e.signature}`;
    if (!nameSig.toLowerCase().includes(last)) continue;
    const selector = e.selector.toLowerCase();
    if (wanted.length > 0) {
      const haystack = `${selector} ${e.signature.toLowerCase()} ${(e.doc ?? '').toLowerCase()}`;
      if (!wanted.every((w) => haystack.includes(w))) continue;
    }
    const qualified = qualifiedName(e.selector, e.path).toLowerCase();
    // rank: 0 exact qualified name, 1 exact name (both in exact case), 2 and 3 the same ignoring
    // case, 4 suffix, 5 substring, 6 + fuzzy (fewer shared query tokens rank lower).
    let tier: MatchTier;
    let rank: number;
    if (e.selector === q || qualifiedName(e.selector, e.path) === q) [tier, rank] = ['exact', 0];
    else if (e.name === q) [tier, rank] = ['name', 1];
    else if (selector === ql || qualified === ql) [tier, rank] = ['exact', 2];
    else if (e.name.toLowerCase() === ql) [tier, rank] = ['name', 3];
    else if (selector.endsWith(ql)) [tier, rank] = ['suffix', 4];
    else if (selector.includes(ql)) [tier, rank] = ['substring', 5];
    else {
      const text = `${selector} ${e.signature.toLowerCase()}`;
      let shared = 0;
      for (const t of new Set(tokens)) if (text.includes(t)) shared++;
      [tier, rank] = ['fuzzy', 6 + 1 / (1 + shared)]; // shared ≥ 1: the last token is always there
    }
    scored.push({ entity: e, tier, rank, caseExact: `${e.selector} ${nameSig}`.includes(lastExact) });
  }
  scored.sort(
    (a, b) =>
      a.rank - b.rank ||
      Number(b.caseExact) - Number(a.caseExact) ||
      compare(a.entity.selector, b.entity.selector),
  );
  return scored.map((s) => ({ entity: s.entity, tier: s.tier, rank: s.rank }));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
