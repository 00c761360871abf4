// run_test: a test target in a fresh sandbox over a snapshot of the repository; passed is
// exit_code == 0. The policy's part (a non-empty target) is policy/tools/run-test.ts, the run
// itself primitives/run-test.ts. Its name is the ledger's too (runtime/ledger/sandbox-tools.ts).
import { z } from 'zod';
import type { SandboxToolName } from '../../runtime/ledger/sandbox-tools.js';
import { runTestResultSchema } from '../results/sandbox-results.js';
import { runTest } from '../run-test.js';
import { sandboxContext, sandboxRecorded } from './in-sandbox.js';
import { defineTool, stringArg } from './tool.js';

export const runTestTool = defineTool({
  name: 'run_test' satisfies SandboxToolName,
  description: 'execute a test; pass/fail + truncated traceback',
  returns: '{passed, exit_code, output, timed_out, counts?}',
  category: 'execute',
  keywords: ['test', 'run', 'verify', 'pytest', 'fail', 'pass', 'assert', 'regression'],
  args: z.strictObject({
    target: z.string(),
    timeout: z.int().min(1).max(300).default(120),
  }),
  result: runTestResultSchema,
  kind: 'test',
  sandboxed: true,
  subject: (args) => stringArg(args, 'target'),
  run: async (ctx, args) =>
    sandboxRecorded(
      ctx,
      await runTest(
        { ...sandboxContext(ctx), testEnv: ctx.options.testEnv, testNotes: ctx.options.testNotes },
        args,
      ),
    ),
});
