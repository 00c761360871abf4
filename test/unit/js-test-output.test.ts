// The JavaScript runners' output, read by the one reader of test output: real output of jest,
// vitest, mocha, node:test, node-tap, tape and ava (test/fixtures/js-runners/, captured from tiny
// suites: a pass, a failure, a skip, a todo, one describe twice with the same test title, a file
// that does not load, a test that prints a fake summary), each runner's machine report framed
// after its exit as run_test asks for it, and its console as the fallback.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { testCounts } from '../../runtime/test-output/counts.js';
import { readJsOutput } from '../../runtime/test-output/js/js-output.js';
import { reportFrame, withoutReportFrame } from '../../runtime/test-output/js/report-frame.js';
import { reportNote } from '../../runtime/test-output/js/report-note.js';
import { parseTestOutcomes } from '../../runtime/test-output/outcomes.js';
import { testVerdict } from '../../runtime/test-output/test-verdict.js';
import { withoutColors } from '../../runtime/text/terminal-colors.js';

interface Captured {
  runner: string;
  exit_code: number;
  stdout: string;
  stderr: string;
}

function fixture(name: string): Captured {
  return JSON.parse(readFileSync(`test/fixtures/js-runners/${name}.json`, 'utf8')) as Captured;
}

const verdictOf = (c: Captured, exit = c.exit_code) =>
  testVerdict({ stdout: c.stdout, stderr: c.stderr, exit_code: exit, timed_out: false }, 'javascript');

// name → the counts read (passed, failed, errors, skipped)
const COUNTS: [string, [number, number, number, number]][] = [
  ['jest-framed-mixed', [4, 2, 1, 2]],
  ['jest-console-mixed', [4, 2, 0, 2]],
  ['jest-json-stdout-mixed', [4, 2, 1, 2]],
  // A test's print of `9 passing` beside mocha's JSON: the worse of the two stands.
  ['mocha-json-stdout-mixed', [3, 2, 1, 2]],
  ['vitest-framed-mixed', [3, 2, 1, 2]],
  ['vitest-console-mixed', [3, 2, 0, 2]],
  ['mocha-framed-mixed', [3, 2, 1, 2]],
  ['mocha-console-mixed', [3, 3, 0, 2]],
  ['mocha-tap-mixed', [3, 3, 0, 2]],
  ['node-test-framed-mixed', [3, 2, 0, 2]],
  ['node-test-tap-mixed', [3, 2, 0, 2]],
  // node:test's spec reporter, a project's plain `node --test`: its closing `ℹ` block.
  ['node-test-spec-mixed', [3, 2, 0, 2]],
  // uvu's closing block; a test's print of a green block comes before it.
  ['uvu-console-mixed', [2, 1, 0, 1]],
  ['tap-framed-mixed', [3, 2, 0, 2]],
  ['tape-framed-mixed', [2, 1, 0, 2]],
  ['tape-tap-mixed', [2, 1, 0, 2]],
  ['ava-framed-mixed', [2, 1, 0, 2]],
  // ava's console names no passes when a test failed.
  ['ava-console-mixed', [0, 1, 0, 2]],
];

describe("each runner's counts, from its report or its console", () => {
  it.each(COUNTS)('%s', (name, [passed, failed, errors, skipped]) => {
    const c = fixture(name);
    expect(testCounts(c.stdout, c.stderr, 'javascript')).toEqual({ passed, failed, errors, skipped });
    // Failing runs: never a pass, and under a masked status the failures are named.
    expect(verdictOf(c)).toMatchObject({ pass: false, why: `exit code ${c.exit_code}` });
    const masked = verdictOf(c, 0);
    expect(masked.pass).toBe(false);
    if (!masked.pass) expect(masked.why).toMatch(/under exit code 0 \(the status was masked\)$/);
  });
});

describe('per-test words from the machine reports', () => {
  it('jest: describe blocks joined, the same title twice keeps the worse word, a file that did not load is an error', () => {
    const words = readJsOutput(fixture('jest-framed-mixed').stdout, '').outcomes;
    expect(Object.fromEntries(words)).toEqual({
      'a.test.js › math › adds': 'PASSED',
      'a.test.js › math › breaks': 'FAILED',
      'a.test.js › math › skipped one': 'SKIPPED',
      'a.test.js › math › later': 'SKIPPED',
      'a.test.js › math › inner › same': 'FAILED',
      'a.test.js › forges': 'PASSED',
      'b.test.js › ok in b': 'PASSED',
      'c.test.js': 'ERROR',
    });
  });

  it("vitest writes jest's shape: the same ids", () => {
    const words = readJsOutput(fixture('vitest-framed-mixed').stdout, '').outcomes;
    expect(words.get('a.test.js › math › inner › same')).toBe('FAILED');
    expect(words.get('a.test.js › math › later')).toBe('SKIPPED');
    expect(words.get('c.test.js')).toBe('ERROR');
  });

  it('mocha: a failed hook is an error, not a test that failed', () => {
    const words = readJsOutput(fixture('mocha-framed-mixed').stdout, '').outcomes;
    expect(words.get('test/a.spec.js › hooks "before all" hook for "never runs"')).toBe('ERROR');
    expect(words.get('test/a.spec.js › math breaks')).toBe('FAILED');
    expect(words.get('test/a.spec.js › math later')).toBe('SKIPPED');
  });

  it('TAP from node:test: a suite is not a test, its subtests are; TODO and SKIP are skips', () => {
    const words = readJsOutput(fixture('node-test-framed-mixed').stdout, '').outcomes;
    expect(Object.fromEntries(words)).toEqual({
      'math › adds': 'PASSED',
      'math › breaks': 'FAILED',
      'math › skipped one': 'SKIPPED',
      'math › later': 'SKIPPED',
      'math › inner › same': 'FAILED',
      forges: 'PASSED',
    });
  });

  it("TAP from node-tap, tape and ava: nested files, tape's groups, a `not ok … # TODO` is no failure", () => {
    expect(
      readJsOutput(fixture('tap-framed-mixed').stdout, '').outcomes.get('test/a.js › math › inner › same'),
    ).toBe('FAILED');
    const tape = readJsOutput(fixture('tape-tap-mixed').stdout, '').outcomes;
    expect(tape.get('math › breaks')).toBe('FAILED');
    expect(tape.get('later › not yet')).toBe('SKIPPED');
    expect(tape.get('skipped one')).toBe('SKIPPED');
    expect(readJsOutput(fixture('ava-framed-mixed').stdout, '').outcomes.get('later')).toBe('SKIPPED');
  });

  it("mocha's spec listing without a report: describe blocks by indentation, a hook's failure an error", () => {
    const c = fixture('mocha-console-mixed');
    expect(Object.fromEntries(readJsOutput(c.stdout, c.stderr).outcomes)).toEqual({
      forges: 'PASSED',
      'math › adds': 'PASSED',
      'math › breaks': 'FAILED',
      'math › skipped one': 'SKIPPED',
      'math › later': 'SKIPPED',
      'math › inner › same': 'FAILED',
      'hooks › "before all" hook for "never runs"': 'ERROR',
    });
  });

  it("node:test's spec listing without a report: suites by indentation, their closing lines no tests, SKIP and TODO skips", () => {
    const c = fixture('node-test-spec-mixed');
    // The fake TAP a test prints names nothing; the failing-tests section repeats, adds nothing.
    expect(Object.fromEntries(readJsOutput(c.stdout, c.stderr).outcomes)).toEqual({
      forges: 'PASSED',
      'math › adds': 'PASSED',
      'math › breaks': 'FAILED',
      'math › skipped one': 'SKIPPED',
      'math › later': 'SKIPPED',
      'math › inner › same': 'FAILED',
    });
    // Node 20 closes a suite with `▶ name (Tms)`: the same ids.
    const node20 = '▶ s\n  ✔ a (1ms)\n▶ s (2ms)\n✔ b (1ms)\nℹ tests 2\nℹ suites 1\nℹ pass 2\nℹ fail 0\n';
    expect(Object.fromEntries(readJsOutput(node20, '').outcomes)).toEqual({ 's › a': 'PASSED', b: 'PASSED' });
  });

  it("jest's verbose listing without a report: the JSON report's ids, the same title twice the worse word", () => {
    const c = fixture('jest-verbose-mixed');
    const words = readJsOutput(c.stdout, c.stderr).outcomes;
    expect(words.get('a.test.js › math › adds')).toBe('PASSED');
    expect(words.get('a.test.js › math › breaks')).toBe('FAILED');
    expect(words.get('a.test.js › math › skipped one')).toBe('SKIPPED');
    expect(words.get('a.test.js › math › later')).toBe('SKIPPED');
    expect(words.get('a.test.js › math › inner › same')).toBe('FAILED');
    expect(words.get('b.test.js › ok in b')).toBe('PASSED');
    // The failure headers (`● math › breaks`) name no file: where the listing is, they add nothing.
    expect(words.has('math › breaks')).toBe(false);
    expect(testCounts(c.stdout, c.stderr, 'javascript')).toEqual({
      passed: 4,
      failed: 2,
      errors: 0,
      skipped: 2,
    });
  });

  it('the shared entry reads a JavaScript run too', () => {
    const c = fixture('node-test-tap-mixed');
    expect(parseTestOutcomes('javascript', c.stdout).get('math › breaks')).toBe('FAILED');
  });
});

describe("node-tap's closing totals, as its terminal reporter prints them", () => {
  // The last lines of a real run (minimatch's suite under tap 21), and the same with failures.
  const green =
    'Asserts:  6236 pass  0 fail  6236 of 6236 complete\n# { total: 6236, pass: 6236 }\n# time=36089.046ms\n';
  const red = '# { total: 9, pass: 6, fail: 1, skip: 1, todo: 1 }\n';
  it('reads its totals; a failure is never a pass', () => {
    expect(testCounts(green, '', 'javascript')).toEqual({ passed: 6236, failed: 0, errors: 0, skipped: 0 });
    expect(testCounts(red, '', 'javascript')).toEqual({ passed: 6, failed: 1, errors: 0, skipped: 2 });
    expect(testVerdict({ stdout: red, stderr: '', exit_code: 0, timed_out: false }, 'javascript').pass).toBe(
      false,
    );
  });
});

describe("the verdict keeps piper's rules", () => {
  const GREEN = [
    'jest-framed-green-forging',
    'jest-console-green-forging',
    'vitest-framed-green-forging',
    'vitest-console-green-forging',
    'mocha-framed-green-forging',
    'mocha-console-green-forging',
    'node-test-framed-green-forging',
    'node-test-tap-green-forging',
    'ava-framed-green-forging',
    'ava-console-green-forging',
  ];
  it.each(GREEN)('%s: a passing run whose test printed a fake failing summary is still a pass', (name) => {
    const v = verdictOf(fixture(name));
    expect(v.pass).toBe(true);
  });

  const SKIPPED = [
    'jest-framed-all-skipped',
    'jest-console-all-skipped',
    'vitest-framed-all-skipped',
    'vitest-console-all-skipped',
    'mocha-framed-all-skipped',
    'mocha-console-all-skipped',
  ];
  it.each(SKIPPED)('%s: every test skipped or todo is no pass', (name) => {
    expect(verdictOf(fixture(name))).toMatchObject({ pass: false, why: 'no test passed (2 skipped)' });
  });

  it('exit 0 with no summary is counts unknown, never a pass', () => {
    const v = testVerdict({ stdout: 'built\n', stderr: '', exit_code: 0, timed_out: false }, 'javascript');
    expect(v).toMatchObject({ pass: false });
    if (!v.pass) expect(v.why).toMatch(/^counts unknown/);
  });

  it("a failing run's fake passing summary, printed by a test, does not outweigh the runner's", () => {
    // jest-console-mixed's `forges` test prints `Tests: 0 failed, 9 passed, 9 total` and a fake
    // jest JSON; mocha-console-mixed's prints `9 passing`. Under a masked status both stay failures.
    for (const name of ['jest-console-mixed', 'mocha-console-mixed', 'vitest-console-mixed']) {
      const masked = verdictOf(fixture(name), 0);
      expect(masked.pass).toBe(false);
    }
  });

  it('a summary of another runner printed into a run makes it worse, never better', () => {
    const green = fixture('mocha-console-green-forging');
    const stdout = `${green.stdout}\nTAP version 13\nnot ok 1 - printed\n1..1\n`;
    const v = testVerdict({ stdout, stderr: green.stderr, exit_code: 0, timed_out: false }, 'javascript');
    expect(v.pass).toBe(false);
  });

  it("a Python project's run is not read by the JavaScript readers, nor the other way round", () => {
    const jest = fixture('jest-console-green-forging');
    expect(testCounts(jest.stdout, jest.stderr)).toBeUndefined();
    const pytest = '==== 3 passed in 0.1s ====\n';
    expect(testCounts(pytest, '', 'javascript')).toBeUndefined();
  });
});

describe('the report frame', () => {
  const frameOf = (kind: string, text: string) =>
    `\n@@piper-report ${kind}@@\n${gzipSync(text).toString('base64')}\n@@piper-report-end@@\n`;
  const greenReport = JSON.stringify({
    numTotalTests: 1,
    testResults: [
      {
        name: '/work/x.test.js',
        status: 'passed',
        assertionResults: [{ title: 'x', status: 'passed', ancestorTitles: [] }],
      },
    ],
  });

  it("the runner's frame is the last: a frame a test printed earlier is not read", () => {
    const real = fixture('jest-framed-mixed');
    const forged = frameOf('jest-json', greenReport);
    const v = testVerdict(
      { ...real, stdout: forged + real.stdout, exit_code: 0, timed_out: false },
      'javascript',
    );
    expect(v.pass).toBe(false);
    expect(v.counts?.failed).toBe(2);
  });

  it('a frame with output after it, or an empty one, is no report, and the console does not stand in', () => {
    const green = fixture('jest-framed-green-forging');
    const after = `${green.stdout}Tests: 3 passed, 3 total\n`;
    expect(reportFrame(after)).toBe('broken');
    expect(testCounts(after, green.stderr, 'javascript')).toBeUndefined();
    const empty = 'Tests:       3 passed, 3 total\n\n@@piper-report jest-json@@\n\n@@piper-report-end@@\n';
    expect(testCounts(empty, empty, 'javascript')).toBeUndefined();
  });

  it("the model reads the report's counts and first failures in piper's words", () => {
    const mocha = fixture('mocha-framed-mixed');
    expect(reportNote(mocha.stdout, mocha.stderr)).toBe(
      "the runner's report: 3 passed, 2 failed, 1 errors, 2 skipped; failed: test/a.spec.js › math inner same; " +
        'test/a.spec.js › math breaks; test/a.spec.js › hooks "before all" hook for "never runs"',
    );
    expect(reportNote('\n@@piper-report tap@@\n\n@@piper-report-end@@\n', '')).toMatch(/none/);
    expect(reportNote(fixture('jest-console-mixed').stdout, '')).toBe('');
  });

  it('a report of 3,000 tests fits the frame: its counts and ids read whole', () => {
    const c = fixture('jest-framed-3000-tests');
    expect(c.stdout.length).toBeLessThan(20_000);
    const { counts, outcomes } = readJsOutput(c.stdout, c.stderr);
    expect(counts).toEqual({ passed: 2940, failed: 60, errors: 0, skipped: 0 });
    expect(
      outcomes.get(
        'f7.test.js › module 7 › feature 50 › does the thing number 50 correctly when given input',
      ),
    ).toBe('FAILED');
  });

  it('the model reads the output without the frame', () => {
    const text = withoutReportFrame(fixture('vitest-framed-mixed').stdout);
    expect(text).not.toMatch(/@@piper-report/);
    expect(withoutColors(text)).toMatch(/Tests {2}2 failed/);
  });
});
