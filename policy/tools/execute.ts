// execute's policy: the code must not be blank; its result gets the sandbox tools' exit-code
// checks. Not in the default set: it acts, it does not observe. The tool itself:
// primitives/tools/execute.ts.
import type { executeTool } from '../../primitives/tools/execute.js';
import { exitCodeChecks } from './sandbox-checks.js';
import { notBlank, type ToolPolicy } from './tool-policy.js';

export const executePolicy: ToolPolicy<typeof executeTool.name> = {
  precondition: (args) => notBlank(args.code, 'empty code'),
  trustChecks: (_args, result, receipt) => exitCodeChecks(result, receipt),
  presentedByDefault: false,
};
