// run_test's policy: the target must not be blank; its result's passed must equal exit_code == 0,
// beside the sandbox tools' exit-code checks. The tool itself: primitives/tools/run-test.ts.
import type { runTestTool } from '../../primitives/tools/run-test.js';
import { exitCodeChecks } from './sandbox-checks.js';
import { notBlank, type ToolPolicy } from './tool-policy.js';

export const runTestPolicy: ToolPolicy<typeof runTestTool.name> = {
  precondition: (args) => notBlank(args.target, 'empty target'),
  trustChecks: (_args, result, receipt) =>
    exitCodeChecks(
      result,
      receipt,
      result.passed !== (result.exit_code === 0)
        ? [`passed is ${result.passed} but exit_code is ${result.exit_code}`]
        : [],
    ),
  presentedByDefault: true,
};
