// search_symbol's policy: the query must not be blank, and every match must hold the query's last
// token in its name + signature (the round-trip check; the ablation rule can skip it). The tool
// itself: primitives/tools/search-symbol.ts.
import type { ToolResultOf } from '../../primitives/tools/all-tools.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol.js';
import { notBlank, type ToolPolicy } from './tool-policy.js';

type Name = typeof searchSymbolTool.name;

export const searchSymbolPolicy: ToolPolicy<Name> = {
  precondition: (args) => notBlank(args.query, 'empty query'),
  trustChecks: (args, result, _receipt, skip) =>
    skip.includes('search_symbol_round_trip') ? [] : symbolRoundTrip(args.query, result),
  presentedByDefault: true,
};

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

function symbolRoundTrip(query: string, result: ToolResultOf<Name>): string[] {
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
