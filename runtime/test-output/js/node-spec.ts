// node:test's spec report (a plain `node --test`: its default on a terminal, and from Node 23
// everywhere), read per test when no machine report is there: one line per test, indented two
// spaces a level — `✔ adds (0.9ms)` passed, `✖ breaks (0.8ms)` failed, `﹣ x (0.1ms) # SKIP` and
// `… # TODO` skipped — and each suite or test with subtests opened by `▶ name` and closed by a
// line of its own name at its own depth (not a test). Only the lines before the closing `ℹ tests N`
// are the listing; the `✖ failing tests:` section after it repeats failures out of their suites.
// A line a test prints lands in the listing too: it can add a word, as the runner's own lines do,
// but the counts are the closing summary's (console-summary.ts).
import { putWorse, type SummaryWord } from '../worse-word.js';
import { ID_JOIN } from './reading.js';

const LINE = /^( *)([✔✖﹣▶]) (.+?)(?: \([\d.]+m?s\))?(?: # (SKIP|TODO)\b.*)?$/;
const WORDS: Record<string, SummaryWord> = { '✔': 'PASSED', '✖': 'FAILED', '﹣': 'SKIPPED' };

export function parseNodeSpec(stdout: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  const lines = stdout.split('\n');
  let end = -1;
  for (let i = lines.length - 1; i >= 0 && end < 0; i--) if (/^ℹ tests \d+$/.test(lines[i]!)) end = i;
  const open: string[] = [];
  for (const line of lines.slice(0, Math.max(end, 0))) {
    const m = LINE.exec(line);
    if (!m || m[1]!.length % 2 !== 0) continue;
    const depth = m[1]!.length / 2;
    const [mark, name, directive] = [m[2]!, m[3]!, m[4]];
    if (mark === '▶') {
      open.length = depth;
      open[depth] = name;
      continue;
    }
    // The line that ends a suite (Node 20 writes `▶ name (Tms)`, matched above as an opening).
    if (open.length === depth + 1 && open[depth] === name) {
      open.length = depth;
      continue;
    }
    if (depth > open.length) continue;
    const word: SummaryWord = directive ? 'SKIPPED' : WORDS[mark]!;
    putWorse(out, [...open.slice(0, depth), name].join(ID_JOIN), word);
  }
  return out;
}
