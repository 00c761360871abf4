// The project's own tsc, run in its sandbox for the lint gate: a snapshot of the repository with the
// edited file's new text in place, in the environment image (its node_modules holds the project's
// TypeScript), no network, the workspace's limits and the gate's budget. Like the Python compile
// check, these runs are the gate's own, not tool calls of the model's: they are not in the ledger.
import { runTestTool } from '../tools/run-test/tool.js';
import { Readable } from 'node:stream';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { withContents } from '../regression/as-written.js';
import { keepSnapshot } from '../regression/suite-snapshot.js';
import type { TscRunner } from './tsc-check.js';

/** The project's compiler, as its own scripts would start it, over its tsconfig.json. */
const TSC = ['sh', '-c', 'exec node_modules/.bin/tsc --noEmit --pretty false'];

export function sandboxTscRunner(sandbox: Sandbox, repoRoot: string): TscRunner {
  return async ({ path, text, timeoutMs }) => {
    try {
      const snapshot = await withContents(await keepSnapshot(repoRoot), new Map([[path, Buffer.from(text)]]));
      const receipt = await sandbox.run({
        image: sandbox.image,
        argv: TSC,
        workspace: Readable.from([snapshot.tar]),
        limits: {
          ...runTestTool.limits,
          ...snapshot.sized,
          timeoutS: Math.max(1, Math.ceil(timeoutMs / 1000)),
        },
      });
      if (receipt.timed_out)
        return { ran: false, reason: `tsc took longer than ${Math.round(timeoutMs / 1000)} s` };
      return { ran: true, exitCode: receipt.exit_code, output: `${receipt.stdout}\n${receipt.stderr}` };
    } catch (error) {
      return { ran: false, reason: (error as Error).message };
    }
  };
}
