// search_code: summarized, capped retrieval over the code index's entities (lexical, or dense with
// an embedder). The policy's part (a non-empty query) is policy/tools/search-code.ts, the search
// primitives/search-code.ts.
import { z } from 'zod';
import { searchCodeResultSchema } from '../results/read-results.js';
import { searchCode } from '../search-code.js';
import { readContext, runInProcess } from './in-process.js';
import { defineTool, stringArg } from './tool.js';

export const searchCodeTool = defineTool({
  name: 'search_code',
  description: 'summarized + capped embedding retrieval over entities',
  returns: 'envelope {ok, error, data:{results:[{selector, signature, doc, score}], retrieval, note?}}',
  category: 'search',
  keywords: ['search', 'code', 'retrieve', 'similar', 'related', 'embedding', 'semantic'],
  args: z.strictObject({
    query: z.string(),
    cap: z.int().min(1).max(8).default(8),
  }),
  result: searchCodeResultSchema,
  kind: 'search',
  sandboxed: false,
  subject: (args) => stringArg(args, 'query'),
  run: (ctx, args) => runInProcess(ctx, args, (callId) => searchCode(readContext(ctx, callId), args)),
});
