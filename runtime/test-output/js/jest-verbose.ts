// jest's test listing on stderr, read per test when no machine report is there: after a file's
// `PASS ./a.test.js` or `FAIL ./a.test.js` line, one line per test, indented two spaces a describe
// level — `✓ adds (4 ms)` passed, `✕ breaks` failed, `○ skipped x` skipped, `✎ todo x` todo — up
// to the blank line that ends it. jest lists them so with `--verbose`, or when one file ran; a test's
// console.log is printed elsewhere (stdout, or a `● Console` block after the blank line). The ids
// are the JSON report's: the file, its describe blocks and the title, joined by ` › `.
import { putWorse, type SummaryWord } from '../worse-word.js';
import { ID_JOIN } from './reading.js';

const TIME = /(?: \(\d+(?:\.\d+)? m?s\))?$/;
const MARKS: [RegExp, SummaryWord][] = [
  [/^✓ /, 'PASSED'],
  [/^✕ /, 'FAILED'],
  [/^○ (?:skipped )?/, 'SKIPPED'],
  [/^✎ todo /, 'SKIPPED'],
];

export function parseJestVerbose(stderr: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  let file: string | null = null;
  const names: string[] = [];
  for (const line of stderr.split('\n')) {
    const header = /^(?:PASS|FAIL) (\S+)/.exec(line);
    if (header) {
      file = header[1]!.replace(/^\.\//, '');
      names.length = 0;
      continue;
    }
    if (file === null) continue;
    const indent = /^ */.exec(line)![0].length;
    const text = line.trim();
    if (text === '' || indent < 2 || indent % 2 !== 0) {
      file = null;
      continue;
    }
    const depth = indent / 2 - 1;
    const mark = MARKS.find(([re]) => re.test(text));
    if (!mark) {
      names.length = depth;
      names[depth] = text;
      continue;
    }
    const title = text.replace(mark[0], '').replace(TIME, '');
    putWorse(out, [file, ...names.slice(0, depth), title].join(ID_JOIN), mark[1]);
  }
  return out;
}
