// sympy's own runner (`bin/test -C --verbose FILES`): under each file's `path.py[N]` line, one line
// per test function, its bare name and a word: `test_x ok`, `F` failed, `E` error, `f` expected
// failure, `X` unexpected pass, `s`/`w` skipped (a skip's reason, when given, comes between). The last
// test of a file carries the file's `[OK]` or `[FAIL]` at the end of its line. SWE-bench's sympy
// instances name tests by the bare function name, so that is the id here.
import type { SummaryWord } from './pytest-summary.js';
import { putWorse } from './worse-word.js';

const WORD: Record<string, SummaryWord> = {
  ok: 'PASSED',
  F: 'FAILED',
  E: 'ERROR',
  f: 'XFAIL',
  X: 'XPASS',
  s: 'SKIPPED',
  w: 'SKIPPED',
  // The runner's own per-test timeout.
  T: 'FAILED',
};

/** Each test function the verbose report names, with its word; a name seen twice keeps the worse. */
export function parseSympyVerbose(output: string): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  for (const raw of output.split('\n')) {
    const line = raw
      .trim()
      .replace(/\s*\[(OK|FAIL)\]$/, '')
      .trimEnd();
    const m = /^(test_\w+)(?:\s.*)?\s(ok|[FEfXswT])$/.exec(line);
    if (!m) continue;
    putWorse(out, m[1]!, WORD[m[2]!]!);
  }
  return out;
}
