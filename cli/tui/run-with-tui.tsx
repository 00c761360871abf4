// A fix run on a terminal: the agent runs here, outside React, and feeds the Ink app through the
// store. When the run ends the final screen is drawn and the process exits with the run's code,
// no keypress needed.
import type { ApprovalMode } from '../../policy/approval.js';
import type { RunResult } from '../../policy/events.js';
import { runFix, type FixInput } from '../fix/run-fix.js';
import { openScreen } from './screen.js';
import { ViewStore } from './store.js';

export async function runWithTui(
  input: Omit<FixInput, 'emit' | 'log' | 'askUser' | 'approval'> & { approvalMode: ApprovalMode },
): Promise<RunResult> {
  const { approvalMode, ...fix } = input;
  const store = new ViewStore(true);
  const screen = openScreen(store);
  const logs: string[] = [];
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
  } finally {
    // Let Ink draw the last frame before unmounting.
    await new Promise((r) => setTimeout(r, 50));
    await screen.close();
    for (const line of logs) process.stderr.write(`${line}\n`);
  }
}
