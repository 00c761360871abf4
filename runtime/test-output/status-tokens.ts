// What the public SWE-bench harness reads beyond node ids. Its pytest parser splits every line that
// starts with a summary word at whitespace and takes the second word as a test id, so a status word
// that pytest wrapped onto a line of its own in a nested run's captured output (`PASSED [100%]`)
// becomes an id the dataset names. Read here only for grading instances that name such ids.
// Such a token repeats (every nested run prints its own `PASSED [100%]`, some `FAILED [100%]`); the
// harness keeps the last line's word (its map is overwritten line by line), so the dataset's label is
// that word, and the worst one would fail a test the harness passed.
import { withoutColors } from '../text/terminal-colors.js';
import type { SummaryWord } from './pytest-summary.js';

/** Each second word of a line that starts with a summary word, when it is not a node id: the last line's word. */
export function parseStatusTokens(stdout: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  for (const m of withoutColors(stdout).matchAll(/^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)[ \t]+(\S+)/gm)) {
    if (!m[2]!.includes('::')) out.set(m[2]!, m[1] as SummaryWord);
  }
  return out;
}
