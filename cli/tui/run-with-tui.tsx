// A fix run on a terminal: the agent runs here, outside React, and feeds the Ink app through the
// store. When the run ends the final screen is drawn and the process exits with the run's code,
// no keypress needed. The log is written to stderr after the screen: its words to the user (a
// sweep, an environment note) always; the environment build's own lines (pip, dpkg: a hundred of
// them, which would bury the final screen) only with --verbose, or their tail when the build failed.
// They are in the ledger's environments row either way.
import type { ApprovalMode } from '../../policy/approval.js';
import type { RunResult } from '../../policy/events.js';
import { runFix, type FixInput } from '../../core/fix/run-fix.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { inert } from '../../runtime/text/inert.js';
import { openScreen } from './screen.js';
import { logAfterRun } from './setup-log.js';
import { ViewStore } from './store.js';

export async function runWithTui(
  input: Omit<FixInput, 'emit' | 'log' | 'askUser' | 'approval'> & {
    approvalMode: ApprovalMode;
    /** Write the environment build's whole log to stderr after the run. */
    verbose?: boolean;
  },
): Promise<RunResult> {
  const { approvalMode, verbose = false, ...fix } = input;
  const store = new ViewStore(true);
  const screen = openScreen(store);
  const logs: string[] = [];
  let failure: unknown = null;
  try {
    return await runFix({
      ...fix,
      emit: store.push,
      askUser: store.ask,
      approval: { mode: approvalMode, ask: store.askApproval },
      log: (line) => {
        logs.push(line);
        store.log(line);
      },
    });
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // Let Ink draw the last frame before unmounting.
    await new Promise((r) => setTimeout(r, 50));
    await screen.close();
    const failedBuild = isRuntimeError(failure) && failure.kind === 'env_build_failed';
    for (const line of logAfterRun(logs, { verbose, failedBuild })) process.stderr.write(`${inert(line)}\n`);
  }
}
