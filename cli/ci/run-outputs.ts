// What a CI job reads after `fix` or `resume`: the --patch-out file and the GitHub step summary,
// both written from the run's result once it has one.
import type { RunResult } from '../../policy/events.js';
import { writePatchOut } from './patch-out.js';
import { appendStepSummary } from './step-summary.js';

export function writeRunOutputs(
  command: 'fix' | 'resume',
  result: RunResult,
  patchOut: string | undefined,
): void {
  if (patchOut !== undefined) writePatchOut(patchOut, result.diff);
  appendStepSummary(command, result);
}
