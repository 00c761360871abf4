// mocha's default (spec) report, read per test when no machine report is there: under each describe
// title, one line per test, indented two spaces a level — `✔ adds (3ms)` passed, `1) breaks`
// failed (a hook's `1) "before all" hook for "x"` is an error), `- later` pending. Only the lines
// before mocha's own closing `N passing (Tms)` are its listing; the failure details come after.
// A line a test prints lands in the listing too: it can add a word, as the runner's own lines do,
// but the counts are the closing summary's (console-summary.ts).
import { putWorse, type SummaryWord } from '../worse-word.js';
import { ID_JOIN } from './reading.js';

const PASSED = /^[✔✓√] (.+?)(?: \(\d+ms\))?$/;
const FAILED = /^\d+\) (.+)$/;
const PENDING = /^- (.+)$/;
const HOOK = /^"(before|after) (all|each)" hook\b/;

export function parseMochaSpec(stdout: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  const lines = stdout.split('\n');
  let end = -1;
  for (let i = lines.length - 1; i >= 0 && end < 0; i--)
    if (/^ {2}\d+ passing \([\w.]+\)$/.test(lines[i]!)) end = i;
  const names: string[] = [];
  for (const line of lines.slice(0, Math.max(end, 0))) {
    const indent = /^ */.exec(line)![0].length;
    const text = line.trim();
    if (text === '' || indent < 2 || indent % 2 !== 0) continue;
    const depth = indent / 2 - 1;
    const word = wordOf(text);
    if (!word) {
      names.length = depth;
      names[depth] = text;
      continue;
    }
    putWorse(out, [...names.slice(0, depth), word[1]].join(ID_JOIN), word[0]);
  }
  return out;
}

function wordOf(text: string): [SummaryWord, string] | null {
  const passed = PASSED.exec(text);
  if (passed) return ['PASSED', passed[1]!];
  const failed = FAILED.exec(text);
  if (failed) return [HOOK.test(failed[1]!) ? 'ERROR' : 'FAILED', failed[1]!];
  const pending = PENDING.exec(text);
  return pending ? ['SKIPPED', pending[1]!] : null;
}
