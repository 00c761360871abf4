// read_entity: a code entity's signature and, on request, a window of its body. Everything the
// harness knows of the tool is declared here: its precondition (the selector must exist in the code
// index), no trust check beyond its schema, and the reading itself (effect.ts).
import { z } from 'zod';
import { readEntity } from './effect.js';
import { readEntityResultSchema } from '../../results/read-results.js';
import { readContext, runInProcess } from '../in-process.js';
import { defineTool, stringArg } from '../tool.js';
import { ask } from '../tool-checks.js';

export const readEntityTool = defineTool({
  name: 'read_entity',
  description: "read a code entity's signature and optional windowed body",
  returns: 'envelope {ok, error, data:{entity, body}}',
  category: 'read',
  keywords: ['read', 'view', 'inspect', 'signature', 'body', 'entity', 'function', 'class', 'method'],
  args: z.strictObject({
    selector: z.string(),
    body: z.boolean().default(false),
    window: z.int().min(1).max(100).default(100),
  }),
  result: readEntityResultSchema,
  kind: 'read',
  sandboxed: false,
  subject: (args) => stringArg(args, 'selector'),
  run: (ctx, args) => runInProcess(ctx, args, (callId) => readEntity(readContext(ctx, callId), args)),

  precondition: (args, checks) =>
    ask(() => checks.selectorExists(args.selector)) ? null : `unknown selector ${args.selector}`,
  trustChecks: () => [],
  presentedByDefault: true,
});
