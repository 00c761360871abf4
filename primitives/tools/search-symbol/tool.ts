// search_symbol: signature-only symbol search over the code index. Its precondition: a non-empty
// query; the trust gate's round-trip check: every match holds the query's last token in its name +
// signature (the ablation rule can skip it). The ranking itself: effect.ts. A trigger's search (the
// symbol trigger) is observed as `symbol`.
import { z } from 'zod';
import { searchSymbolResultSchema } from '../../results/read-results.js';
import { searchSymbol } from './effect.js';
import { readContext, runInProcess } from '../in-process.js';
import { defineTool, stringArg } from '../tool.js';
import { notBlank } from '../tool-checks.js';

export const searchSymbolTool = defineTool({
  name: 'search_symbol',
  description: 'signature-only AST symbol search',
  returns: 'envelope {ok, error, data:{matches:[{selector, kind, signature, path, line}]}}',
  category: 'search',
  keywords: ['search', 'symbol', 'find', 'lookup', 'name', 'signature', 'grep', 'function'],
  args: z.strictObject({
    query: z.string(),
    keywords: z.array(z.string()).optional(),
    k: z.int().min(1).max(10).default(10),
  }),
  result: searchSymbolResultSchema,
  kind: 'search',
  triggerKind: 'symbol',
  sandboxed: false,
  subject: (args) => stringArg(args, 'query'),
  run: (ctx, args) => runInProcess(ctx, args, (callId) => searchSymbol(readContext(ctx, callId), args)),

  precondition: (args) => notBlank(args.query, 'empty query'),
  trustChecks: (args, result, _receipt, skip) =>
    skip.includes('search_symbol_round_trip') ? [] : symbolRoundTrip(args.query, result),
  presentedByDefault: true,
});

/** The token a match must contain: the query's last dotted or spaced part (`a.B.remember` → `remember`). */
export function lastQueryToken(query: string): string {
  return (
    query
      .trim()
      .split(/[.\s]+/)
      .filter(Boolean)
      .at(-1) ?? ''
  );
}

function symbolRoundTrip(query: string, result: z.output<typeof searchSymbolResultSchema>): string[] {
  const token = lastQueryToken(query).toLowerCase();
  if (!result.ok || !result.data || token === '') return [];
  const lacking = result.data.matches.filter((match) => {
    const name = match.selector.split('.').at(-1) ?? match.selector;
    return !`${name} ${match.signature}`.toLowerCase().includes(token);
  });
  if (lacking.length === 0) return [];
  const first = lacking[0]!.selector;
  const more = lacking.length > 1 ? ` (and ${lacking.length - 1} more)` : '';
  return [
    `round-trip: ${searchSymbolTool.name} match ${first}${more} lacks the query token "${lastQueryToken(query)}"`,
  ];
}

// The folder's public entry: the search itself (the benchmarks) and its ranking (read_entity's
// suggestions for a selector it does not find).
export { FUZZY_LAST_TOKEN_ONLY, rankSymbols, searchSymbol } from './effect.js';
