// The counts a JavaScript runner prints at the end of its console report, read when no machine
// report is there (a project's own `npm test`). Each is read where and as its runner writes it, the
// last one in the output: a test's own print of a summary comes before the runner's.
//   jest (stderr, at the left edge):  `Test Suites: 1 failed, 2 passed, 3 total`
//                                     `Tests:       2 failed, 1 skipped, 1 todo, 4 passed, 8 total`
//   vitest (stdout, two lines):       ` Test Files  2 failed (2)` / `      Tests  2 failed | 3 passed | 1 skipped | 1 todo (7)`
//   mocha (stdout):                   `  3 passing (20ms)` then `  2 pending`, `  3 failing`
//   ava (stdout):                     `  1 test failed`, `  2 tests passed`, `  1 test skipped`, `  1 test todo`
//   node-tap (stdout, its last line): `# { total: 9, pass: 6, fail: 1, skip: 1, todo: 1 }`
//   uvu (stdout, its closing block):  `  Total:     32` `  Passed:    30` `  Skipped:   1` `  Duration:  5.12ms`
//   node:test's spec reporter (stdout, its default on a terminal and from Node 23 everywhere):
//                                     `ℹ tests 4` `ℹ suites 1` `ℹ pass 3` `ℹ fail 1` `ℹ cancelled 0` `ℹ skipped 0` `ℹ todo 0`
// A file that failed with no test failing (it did not load) is an error: jest and vitest count it
// only among their failed files.
import type { TestCounts } from '../test-counts.js';

type Words = Record<string, number>;

/** `2 failed, 1 skipped` or `2 failed | 3 passed`: each word's number. */
function wordsOf(text: string): Words {
  const words: Words = {};
  for (const m of text.matchAll(/(\d+) (\w+)/g)) words[m[2]!] = (words[m[2]!] ?? 0) + Number(m[1]);
  return words;
}

function lastIndex(lines: string[], re: RegExp): number {
  for (let i = lines.length - 1; i >= 0; i--) if (re.test(lines[i]!)) return i;
  return -1;
}

function fromWords(tests: Words, failedFiles: number): TestCounts {
  const failed = tests.failed ?? 0;
  return {
    passed: tests.passed ?? 0,
    failed,
    errors: failed === 0 ? failedFiles : 0,
    skipped: (tests.skipped ?? 0) + (tests.todo ?? 0) + (tests.pending ?? 0),
  };
}

export function jestConsoleCounts(stderr: string): TestCounts | undefined {
  const lines = stderr.split('\n');
  const at = lastIndex(lines, /^Tests:\s+.*\b\d+ total$/);
  if (at < 0) return undefined;
  const suites = /^Test Suites:\s+(.*)$/.exec(lines[at - 1] ?? '');
  return fromWords(wordsOf(lines[at]!.replace(/\d+ total$/, '')), wordsOf(suites?.[1] ?? '').failed ?? 0);
}

export function vitestConsoleCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.split('\n');
  const at = lastIndex(lines, /^\s*Tests\s{2}.*\(\d+\)$/);
  if (at < 1) return undefined;
  const files = /^\s*Test Files\s{2}(.*)\(\d+\)$/.exec(lines[at - 1]!);
  if (!files) return undefined;
  return fromWords(wordsOf(lines[at]!.replace(/\(\d+\)$/, '')), wordsOf(files[1]!).failed ?? 0);
}

export function mochaConsoleCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.split('\n');
  const at = lastIndex(lines, /^ {2}\d+ passing \([\w.]+\)$/);
  if (at < 0) return undefined;
  const words: Words = { passed: Number(/\d+/.exec(lines[at]!)![0]) };
  for (const line of lines.slice(at + 1, at + 5)) {
    const m = /^ {2}(\d+) (pending|failing)$/.exec(line);
    if (m) words[m[2] === 'failing' ? 'failed' : 'pending'] = Number(m[1]);
    else if (line.trim() !== '') break;
  }
  return fromWords(words, 0);
}

export function avaConsoleCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.split('\n');
  const re = /^ {2}(\d+) tests? (passed|failed|skipped|todo)$/;
  const end = lastIndex(lines, re);
  if (end < 0) return undefined;
  const words: Words = {};
  for (let i = end; i >= 0 && re.test(lines[i]!); i--) {
    const m = re.exec(lines[i]!)!;
    words[m[2]!] = (words[m[2]!] ?? 0) + Number(m[1]);
  }
  return fromWords(words, 0);
}

/** node:test's spec summary: the last `ℹ tests N` block; a cancelled test (a timeout, a hook) failed. */
export function nodeSpecConsoleCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.split('\n');
  const at = lastIndex(lines, /^ℹ tests \d+$/);
  if (at < 0) return undefined;
  const words: Words = {};
  for (const line of lines.slice(at + 1, at + 8)) {
    const m = /^ℹ (suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
    if (!m) break;
    words[m[1]!] = Number(m[2]);
  }
  if (words.pass === undefined || words.fail === undefined) return undefined;
  return {
    passed: words.pass,
    failed: words.fail + (words.cancelled ?? 0),
    errors: 0,
    skipped: (words.skipped ?? 0) + (words.todo ?? 0),
  };
}

/** uvu's closing block: its total counts the tests that ran (not the skipped); what did not pass failed. */
export function uvuConsoleCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.split('\n');
  const at = lastIndex(lines, /^ {2}Total: +\d+$/);
  if (at < 0) return undefined;
  const passed = /^ {2}Passed: +(\d+)$/.exec(lines[at + 1] ?? '');
  const skipped = /^ {2}Skipped: +(\d+)$/.exec(lines[at + 2] ?? '');
  if (!passed || !skipped) return undefined;
  const total = Number(/\d+/.exec(lines[at]!)![0]);
  const [p, s] = [Number(passed[1]), Number(skipped[1])];
  return { passed: p, failed: Math.max(0, total - p), errors: 0, skipped: s };
}

/** node-tap's closing totals comment (its reporter's last word); its total counts the test points. */
export function nodeTapConsoleCounts(stdout: string): TestCounts | undefined {
  const lines = stdout.split('\n');
  const at = lastIndex(lines, /^# \{ total: \d+(, \w+: \d+)* \}$/);
  if (at < 0) return undefined;
  const words: Words = {};
  for (const m of lines[at]!.matchAll(/(\w+): (\d+)/g)) words[m[1]!] = Number(m[2]);
  return {
    passed: words.pass ?? 0,
    failed: words.fail ?? 0,
    errors: 0,
    skipped: (words.skip ?? 0) + (words.todo ?? 0),
  };
}
