// run_test: a test target in a fresh sandbox over a snapshot of the repository; passed is
// exit_code == 0. Its precondition: a non-empty target; its result's passed must equal
// exit_code == 0, beside the sandbox tools' exit-code checks; an exit-code pass the counts do not
// back (no test ran, all skipped, a failure named, counts unknown) is `test counts: <why>`. The run itself: effect.ts. Its name is
// the ledger's too (runtime/ledger/sandbox-tools.ts).
import { z } from 'zod';
import type { SandboxToolName } from '../../../runtime/ledger/sandbox-tools.js';
import { runTestResultSchema } from '../../results/sandbox-results.js';
import { RUN_TEST_LIMITS, runTest } from './effect.js';
import { sandboxContext, sandboxRecorded } from '../in-sandbox.js';
import { defineTool, stringArg } from '../tool.js';
import { exitCodeChecks } from '../sandbox-checks.js';
import { notBlank } from '../tool-checks.js';

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
        {
          ...sandboxContext(ctx),
          testEnv: ctx.options.testEnv,
          testNotes: ctx.options.testNotes,
          language: ctx.options.language,
          testRunner: ctx.options.testRunner,
        },
        args,
      ),
    ),

  precondition: (args) => notBlank(args.target, 'empty target'),
  trustChecks: (_args, result, receipt) =>
    exitCodeChecks(
      result,
      receipt,
      result.passed !== (result.exit_code === 0)
        ? [`passed is ${result.passed} but exit_code is ${result.exit_code}`]
        : [],
    ).concat(result.passed && result.unverified_pass ? [`test counts: ${result.unverified_pass}`] : []),
  presentedByDefault: true,
  limits: RUN_TEST_LIMITS,
});

// The folder's public entry: how a target runs in a language (the regression gate's suite runs use
// it) and one run, for the evaluation's grading and the benchmarks.
export { languageTargetArgv, runTest } from './effect.js';
