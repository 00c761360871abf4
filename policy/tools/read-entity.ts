// read_entity's policy: the selector must exist in the code index. Its result has no check beyond
// its schema. The tool itself: primitives/tools/read-entity.ts.
import type { readEntityTool } from '../../primitives/tools/read-entity.js';
import { ask, type ToolPolicy } from './tool-policy.js';

export const readEntityPolicy: ToolPolicy<typeof readEntityTool.name> = {
  precondition: (args, checks) =>
    ask(() => checks.selectorExists(args.selector)) ? null : `unknown selector ${args.selector}`,
  trustChecks: () => [],
  presentedByDefault: true,
};
