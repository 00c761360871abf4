// GitHub Actions' job summary: when GITHUB_STEP_SUMMARY names a file, `fix` and `resume` append a
// short markdown account of the run (outcome, verified, the diff, tokens, cost, run id, how to undo).
// Appended, never truncated: other steps write to the same file. The run's reason, question and diff
// carry text from the model and the repository, so each goes inside a code fence longer than any
// run of backticks in it: nothing inside can close the fence and become markdown or HTML.
import { verdictLines } from '../../policy/verdict-lines.js';
import { appendFileSync } from 'node:fs';
import type { RunResult } from '../../policy/events.js';
import { regressionLines, suiteLine } from '../../policy/regression/suite-report.js';

/** GitHub caps a step's summary at 1 MiB; a diff beyond this is cut at a line and said to be. */
const MAX_DIFF_CHARS = 256 * 1024;

/** `text` in a fenced code block whose fence no backtick run inside can match. */
export function fenced(text: string, info = ''): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${fence}${info}\n${body}${fence}\n`;
}

export function stepSummary(command: 'fix' | 'resume', result: RunResult): string {
  const cost = result.cost_usd === null ? 'unknown' : `$${result.cost_usd.toFixed(4)}`;
  const lines = [
    `### piper-agent ${command}: ${result.outcome}${result.verified ? ', verified' : ', not verified'}`,
    '',
    `- outcome: **${result.outcome}** (exit ${result.exit_code})`,
    `- verified: ${result.verified ? 'yes: the repro test passed in the sandbox after the last edit' : 'no'}`,
    `- turns: ${result.turns} · tokens: ${result.tokens} · cost: ${cost}`,
    `- run id: \`${result.run_id}\` (\`piper-agent ledger show ${result.run_id}\`)`,
    `- undo: \`piper-agent undo ${result.run_id}\`${result.diff ? ' (or leave the patch unapplied)' : ''}`,
    '',
  ];
  const parts = [lines.join('\n')];
  if (result.reason) parts.push(`Reason:\n\n${fenced(result.reason, 'text')}\n`);
  const verdict = verdictLines(result);
  if (verdict.length) parts.push(`Verdict:\n\n${fenced(verdict.join('\n'), 'text')}\n`);
  // Test ids are the repository's words: fenced like the reason.
  if (result.suite)
    parts.push(
      `Suite:\n\n${fenced([suiteLine(result.suite), ...regressionLines(result.suite)].join('\n'), 'text')}\n`,
    );
  if (result.question)
    parts.push(
      `Question (answer with \`piper-agent resume ${result.run_id} --answer TEXT\`):\n\n${fenced(result.question, 'text')}\n`,
    );
  if (result.diff === '') parts.push('No edits.\n');
  else {
    const { text, cut } = capped(result.diff);
    parts.push(
      `Diff${cut ? ` (first ${text.length} of ${result.diff.length} characters; the whole diff is in --patch-out)` : ''}:\n\n${fenced(text, 'diff')}\n`,
    );
  }
  return `${parts.join('\n')}\n`;
}

/** Appends the summary when GITHUB_STEP_SUMMARY is set; a failed write is a warning, not the run's end. */
export function appendStepSummary(
  command: 'fix' | 'resume',
  result: RunResult,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    appendFileSync(file, stepSummary(command, result));
  } catch (error) {
    warn(`piper-agent: could not append to GITHUB_STEP_SUMMARY (${file}): ${(error as Error).message}`);
  }
}

function capped(diff: string): { text: string; cut: boolean } {
  if (diff.length <= MAX_DIFF_CHARS) return { text: diff, cut: false };
  const end = diff.lastIndexOf('\n', MAX_DIFF_CHARS);
  return { text: diff.slice(0, end > 0 ? end + 1 : MAX_DIFF_CHARS), cut: true };
}
