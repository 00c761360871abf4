// search_code's policy: the query must not be blank. Its result has no check beyond its schema. The
// tool itself: primitives/tools/search-code.ts.
import type { searchCodeTool } from '../../primitives/tools/search-code.js';
import { notBlank, type ToolPolicy } from './tool-policy.js';

export const searchCodePolicy: ToolPolicy<typeof searchCodeTool.name> = {
  precondition: (args) => notBlank(args.query, 'empty query'),
  trustChecks: () => [],
  presentedByDefault: true,
};
