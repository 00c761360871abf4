// unittest's verbose report (`python -m unittest -v`, and Django's `runtests.py --verbosity 2`, which
// prints through the same TextTestRunner): one line per test, `test_x (module.Class) ... ok`, or
// `FAIL`, `ERROR`, `skipped 'why'`, `expected failure`, `unexpected success`. A test with a docstring
// prints its name on one line and the docstring's first line before ` ... `: that line is the id
// SWE-bench's Django instances use for it, so it is the id here too. Output a test writes lands
// between ` ... ` and its word, which then starts a line of its own.
import type { SummaryWord } from './pytest-summary.js';
import { putWorse } from './worse-word.js';

const WORDS: [RegExp, SummaryWord][] = [
  [/^ok$|^OK$/, 'PASSED'],
  [/^FAIL$/, 'FAILED'],
  [/^ERROR$/, 'ERROR'],
  [/^skipped\b/, 'SKIPPED'],
  [/^expected failure$/, 'XFAIL'],
  [/^unexpected success$/, 'XPASS'],
];

/** The word a verdict names (`ok`, `FAIL`, `skipped 'no db'`), or undefined. */
function wordOf(verdict: string): SummaryWord | undefined {
  const text = verdict.trim();
  return WORDS.find(([re]) => re.test(text))?.[1];
}

/**
 * Python 3.11 and later name a test `test_x (module.Class.test_x)`; the instances (made on older
 * Pythons) write `test_x (module.Class)`. The trailing method name is dropped so both read alike.
 */
export function unittestId(text: string): string {
  const m = /^(\w+) \(([\w.]+)\.(\w+)\)$/.exec(text.trim());
  if (m && m[1] === m[3]) return `${m[1]} (${m[2]})`;
  return text.trim();
}

/**
 * Each test the verbose report names, with its word. A test reported twice (a failing tearDown
 * after `ok`, and the `FAIL: name` header of the failure listing) keeps the worse word.
 */
export function parseUnittestVerbose(output: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  const put = (id: string, word: SummaryWord) => putWorse(out, id, word);
  // The test whose ` ... ` line had no word yet: its word comes on a later line.
  let pending: string | null = null;
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    const header = /^(FAIL|ERROR): (.+)$/.exec(line);
    if (header) {
      put(unittestId(header[2]!), header[1] === 'FAIL' ? 'FAILED' : 'ERROR');
      continue;
    }
    const dots = /^(.+?) \.\.\.(?: (.*))?$/.exec(line);
    if (dots) {
      const id = unittestId(dots[1]!);
      const word = wordOf(dots[2] ?? '');
      if (word) {
        put(id, word);
        pending = null;
      } else pending = id;
      continue;
    }
    const late = pending !== null ? wordOf(line) : undefined;
    if (pending !== null && late) {
      put(pending, late);
      pending = null;
    }
  }
  return out;
}
