// search_symbol: signature-only symbol search over the code index. The policy's part (a non-empty
// query; the round-trip check of its matches) is policy/tools/search-symbol.ts, the ranking
// primitives/search-symbol.ts. A trigger's search (the symbol trigger) is observed as `symbol`.
import { z } from 'zod';
import { searchSymbolResultSchema } from '../results/read-results.js';
import { searchSymbol } from '../search-symbol.js';
import { readContext, runInProcess } from './in-process.js';
import { defineTool, stringArg } from './tool.js';

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
});
