// execute: Python in a fresh sandbox with no network, over a copy of the repository. Its
// precondition: non-empty code; its result gets the sandbox tools' exit-code checks. Not in the
// default set: it acts, it does not observe. The run itself: effect.ts. Its name is the ledger's too
// (runtime/ledger/sandbox-tools.ts).
import { z } from 'zod';
import type { SandboxToolName } from '../../../runtime/ledger/sandbox-tools.js';
import { EXECUTE_LIMITS, execute, executeAlone } from './effect.js';
import { executeResultSchema } from '../../results/sandbox-results.js';
import { sandboxContext, sandboxRecorded } from '../in-sandbox.js';
import { defineTool, stringArg } from '../tool.js';
import { exitCodeChecks } from '../sandbox-checks.js';
import { notBlank } from '../tool-checks.js';

export const executeTool = defineTool({
  name: 'execute' satisfies SandboxToolName,
  description: 'sandboxed compute (no net / no host fs / bounded time)',
  returns: '{stdout, stderr, exit_code, timed_out}',
  category: 'execute',
  keywords: ['execute', 'compute', 'run', 'calculate', 'eval', 'script', 'code', 'sandbox'],
  args: z.strictObject({
    code: z.string(),
    timeout: z.int().min(1).max(30).default(10),
  }),
  result: executeResultSchema,
  kind: 'execute',
  sandboxed: true,
  subject: (args) => stringArg(args, 'code'),
  run: async (ctx, args) => {
    // A person's one-shot `piper-agent execute` runs under its flags' limits, the program alone
    // when it asks for no workspace; the agent's call has the tool's limits and the workspace.
    const asked = ctx.options.oneShotExecute;
    const sandbox = sandboxContext(ctx);
    if (asked && !asked.workspace)
      return sandboxRecorded(ctx, await executeAlone(sandbox, args.code, asked.limits));
    return sandboxRecorded(
      ctx,
      await execute({ ...sandbox, language: ctx.options.language }, args, asked?.limits),
    );
  },

  precondition: (args) => notBlank(args.code, 'empty code'),
  trustChecks: (_args, result, receipt) => exitCodeChecks(result, receipt),
  presentedByDefault: false,
  limits: EXECUTE_LIMITS,
});
