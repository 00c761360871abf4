// search_code: summarized, capped retrieval over the code index's entities (lexical, or dense with
// an embedder). Its precondition: a non-empty query; no trust check beyond its schema. The search
// itself: effect.ts.
import { z } from 'zod';
import { searchCodeResultSchema } from '../../results/read-results.js';
import { searchCode } from './effect.js';
import { readContext, runInProcess } from '../in-process.js';
import { defineTool, stringArg } from '../tool.js';
import { notBlank } from '../tool-checks.js';

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

  precondition: (args) => notBlank(args.query, 'empty query'),
  trustChecks: () => [],
  presentedByDefault: true,
});

// The folder's public entry: the search itself, for the benchmarks.
export { searchCode } from './effect.js';
