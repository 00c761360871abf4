// What a framed report says, in one line for the model: the frame itself is cut from the output it
// reads, and some runners print nothing else (mocha's JSON reporter), so the counts and the first
// tests that failed are said in piper's words.
import { withoutColors } from '../../text/terminal-colors.js';
import { readJsOutput } from './js-output.js';
import { reportFrame } from './report-frame.js';

const NAMED = 5;

export function reportNote(stdout: string, stderr: string): string {
  const frame = reportFrame(withoutColors(stdout));
  if (frame === null) return '';
  if (frame === 'broken') return "the runner's report: none (the runner ended before writing it)";
  const { counts, outcomes } = readJsOutput(stdout, stderr);
  if (!counts) return "the runner's report: unreadable";
  const failed = [...outcomes].filter(([, w]) => w === 'FAILED' || w === 'ERROR').map(([id]) => id);
  const skipped = counts.skipped ? `, ${counts.skipped} skipped` : '';
  const head = `the runner's report: ${counts.passed} passed, ${counts.failed} failed, ${counts.errors} errors${skipped}`;
  if (failed.length === 0) return head;
  const more = failed.length > NAMED ? `, and ${failed.length - NAMED} more` : '';
  return `${head}; failed: ${failed.slice(0, NAMED).join('; ')}${more}`;
}
