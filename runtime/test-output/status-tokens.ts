// What the public SWE-bench harness reads beyond node ids. Its pytest parser splits every line that
// starts with a summary word at whitespace and takes the second word as a test id, so a status word
// that pytest wrapped onto a line of its own in a nested run's captured output (`PASSED [100%]`)
// becomes an id the dataset names. Read here only for grading instances that name such ids.
import { withoutColors } from '../text/terminal-colors.js';
import type { SummaryWord } from './pytest-summary.js';
import { putWorse } from './worse-word.js';

/** Each second word of a line that starts with a summary word, when it is not a node id. */
export function parseStatusTokens(stdout: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  for (const m of withoutColors(stdout).matchAll(/^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)[ \t]+(\S+)/gm)) {
    if (!m[2]!.includes('::')) putWorse(out, m[2]!, m[1] as SummaryWord);
  }
  return out;
}
