// pytest's `-rA` short summary, one line per test: `PASSED tests/x.py::test_y`, or
// `FAILED tests/x.py::test_y[a - b] - AssertionError: ...`. One reader of test output for the
// SWE-bench miner and grader and for the product's own verdicts, so an instance is graded by the
// rule it was mined by and a fix is judged by the same words.

import { withoutColors } from '../text/terminal-colors.js';
import { putWorse, type SummaryWord } from './worse-word.js';

export type { SummaryWord };

/**
 * Each node id the summary names, with its word. Where pytest's `short test summary info` blocks are
 * in the output, only their lines count: a line printed after the closing `=== … in 0.1s ===` (a
 * plugin's or conftest's print at exit) is not pytest's report. A test named twice (a failing
 * teardown after a pass) keeps the worse word: FAILED and ERROR are never overwritten, and no later
 * word turns a failure into a pass or a skip.
 */
export function parseSummary(stdout: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  for (const m of summaryBlock(withoutColors(stdout)).matchAll(
    /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.+)$/gm,
  )) {
    const word = m[1] as SummaryWord;
    const id = nodeIdOf(m[2]!, word).trim();
    // `SKIPPED [1] tests/x.py:12: reason` names a location, not a node id.
    if (!id.includes('::')) continue;
    putWorse(out, id, word);
  }
  return out;
}

/**
 * Every short test summary block, header to closing line, joined; the whole text when it has none.
 * All of them, not the last: a block a conftest forges after pytest's own cannot drop a FAILED the
 * real one names (the worse word wins across blocks).
 */
function summaryBlock(text: string): string {
  const starts = [...text.matchAll(/^=+ short test summary info =+$/gm)].map((m) => m.index + m[0].length);
  if (starts.length === 0) return text;
  return starts
    .map((start) => {
      const rest = text.slice(start);
      const close = /^=+ .* in [\d.]+s(?: \([^)]*\))? =+$/m.exec(rest);
      return close ? rest.slice(0, close.index) : rest;
    })
    .join('\n');
}

/**
 * The node id at the start of a summary line's rest. A parametrize id may hold " - " itself
 * (`test_cmp[c - interval '1 day'-Token]`), so when a `[` comes before the first " - " the id ends
 * at the first `]` that ends the line or is followed by " - "; otherwise at the first " - ".
 */
function nodeIdOf(rest: string, word: SummaryWord): string {
  const dash = rest.indexOf(' - ');
  const bracket = rest.indexOf('[');
  if (bracket >= 0 && (dash < 0 || bracket < dash)) {
    for (let i = rest.indexOf(']', bracket); i >= 0; i = rest.indexOf(']', i + 1)) {
      if (i === rest.length - 1 || rest.startsWith(' - ', i + 1)) return rest.slice(0, i + 1);
    }
  }
  // pytest adds no message to a PASSED line.
  if (word === 'PASSED' || dash < 0) return rest;
  return rest.slice(0, dash);
}
