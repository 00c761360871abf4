// piper's per-test records of a JavaScript run, named as the SWE-bench harness's log parsers name
// the same tests from the runner's console (eval/swebench/js-test-names.ts): each fixture is a
// runner's machine report as run_test frames it, and the names expected are what the harness's
// parse_log_jest / _jest_json / _vitest / _karma / _tap give for the console lines of the same run
// (written beside each case), so an instance's FAIL_TO_PASS and PASS_TO_PASS grade against them.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jsOutcomes, jsParserOf, jsTestTarget } from '../../eval/swebench/js-grading.js';
import type { SweInstance } from '../../eval/swebench/instance-file.js';
import {
  harnessNames,
  jestVerboseName,
  tapName,
  vitestVerboseName,
} from '../../eval/swebench/js-test-names.js';
import { goldEditsOf } from '../../eval/swebench/gold-edits.js';
import { grade } from '../../eval/swebench/test-grade.js';

const frame = (kind: string, text: string) =>
  `some console output\n@@piper-report ${kind}@@\n${gzipSync(text).toString('base64')}\n@@piper-report-end@@\n`;

/** A jest `--json` report (vitest's json reporter writes the same shape). */
const JEST_REPORT = JSON.stringify({
  numTotalTests: 5,
  testResults: [
    {
      name: '/work/src/index.test.ts',
      status: 'failed',
      assertionResults: [
        { ancestorTitles: ['ms(number)'], title: 'should support weeks', status: 'failed' },
        { ancestorTitles: ['ms(number, { long: true })'], title: 'should support weeks', status: 'passed' },
        { ancestorTitles: ['ms(string)'], title: 'should not throw an error', status: 'passed' },
        { ancestorTitles: [], title: 'rounds 5', status: 'passed' },
        { ancestorTitles: ['ms(string)'], title: 'is skipped', status: 'pending' },
      ],
    },
    { name: '/work/src/broken.test.ts', status: 'failed', assertionResults: [] },
  ],
});

describe('jest: parse_log_jest names a test by its title alone', () => {
  // `✓ should not throw an error (2 ms)`, `✕ should support weeks (3 ms)`, `○ skipped is skipped`
  it('titles, twins under two describes one name with the worse status, a skip skipped', () => {
    const named = jsOutcomes(frame('jest-json', JEST_REPORT), 'parse_log_jest', 'jest');
    expect(Object.fromEntries(named)).toEqual({
      'should support weeks': 'failed',
      'should not throw an error': 'passed',
      'rounds 5': 'passed',
      'is skipped': 'skipped',
    });
  });

  it("the harness's pattern cuts a trailing duration, never the title's own words", () => {
    expect(jestVerboseName(['f.test.ts', 'a', 'takes (5 ms)'])).toBe('takes');
    expect(jestVerboseName(['f.test.ts', 'a', 'parses 1h 5m'])).toBe('parses 1h 5m');
    expect(jestVerboseName(['f.test.ts'])).toBeNull();
  });
});

describe('jest JSON through the harness jq and karma: describe blocks and title joined by " > "', () => {
  it('names every test with its describe blocks; a file that did not load names none', () => {
    for (const parser of ['parse_log_jest_json', 'parse_log_karma'] as const) {
      const named = jsOutcomes(frame('jest-json', JEST_REPORT), parser, 'jest');
      expect(Object.fromEntries(named)).toEqual({
        'ms(number) > should support weeks': 'failed',
        'ms(number, { long: true }) > should support weeks': 'passed',
        'ms(string) > should not throw an error': 'passed',
        'rounds 5': 'passed',
        'ms(string) > is skipped': 'skipped',
      });
    }
  });
});

describe('vitest: parse_log_vitest names a test by file, describe blocks and title', () => {
  // `✓ src/index.test.ts > ms(string) > should not throw an error`
  it('the file relative to the work tree first, joined by " > "', () => {
    const named = jsOutcomes(frame('jest-json', JEST_REPORT), 'parse_log_vitest', 'vitest');
    expect(named.get('src/index.test.ts > ms(number) > should support weeks')).toBe('failed');
    expect(named.get('src/index.test.ts > ms(string) > should not throw an error')).toBe('passed');
    expect(named.get('src/index.test.ts > ms(string) > is skipped')).toBe('skipped');
    // A last word that reads as a duration is cut, as the harness's pattern cuts it.
    expect(named.get('src/index.test.ts > rounds')).toBe('passed');
    expect(vitestVerboseName(['a.test.ts', 'x [skipped]'])).toBe('a.test.ts > x');
  });
});

const MOCHA_REPORT = JSON.stringify({
  stats: { tests: 3 },
  passes: [
    {
      fullTitle: 'options options.matchBase should work with negation patterns',
      file: '/work/test/options.js',
    },
  ],
  failures: [
    { fullTitle: 'options options.matchBase should split on backslashes', file: '/work/test/options.js' },
    { fullTitle: 'issue #12 is fixed', file: '/work/test/issues.js' },
  ],
  pending: [],
});

describe('mocha: parse_log_mocha names a test by its full title', () => {
  // `ok 1 options options.matchBase should work with negation patterns` (mocha's tap reporter drops `#`)
  it('the full title, without the file and without #', () => {
    const named = jsOutcomes(frame('mocha-json', MOCHA_REPORT), 'parse_log_mocha', 'mocha');
    expect(Object.fromEntries(named)).toEqual({
      'options options.matchBase should work with negation patterns': 'passed',
      'options options.matchBase should split on backslashes': 'failed',
      'issue 12 is fixed': 'failed',
    });
  });
});

describe('TAP: parse_log_tap names a point by its text after the number', () => {
  it("node:test's subtests are points of their own, written with a dash", () => {
    const tap = [
      'TAP version 13',
      '# Subtest: parse',
      '    # Subtest: parses numbers',
      '    ok 1 - parses numbers',
      '    # Subtest: parses words',
      '    not ok 2 - parses words',
      '    1..2',
      'not ok 1 - parse',
      '1..1',
      '# pass 1',
      '# fail 1',
    ].join('\n');
    const named = jsOutcomes(frame('tap', tap), 'parse_log_tap', 'node-test');
    expect(Object.fromEntries(named)).toEqual({ '- parses numbers': 'passed', '- parses words': 'failed' });
  });

  it("ava's points name the file themselves; tape's carry no dash; a skip passes with its directive", () => {
    const ava = [
      'TAP version 13',
      'ok 1 - main',
      'not ok 2 - sub › custom separator',
      'ok 3 - later # SKIP',
      '1..3',
    ];
    const named = jsOutcomes(frame('tap', ava.join('\n')), 'parse_log_tap', 'ava');
    expect(Object.fromEntries(named)).toEqual({
      '- main': 'passed',
      '- sub › custom separator': 'failed',
      '- later # SKIP': 'passed',
    });
    expect(tapName(['group', 'should be equal'], 'tape')).toBe('should be equal');
  });
});

const instance = (over: Partial<SweInstance>): SweInstance => ({
  instance_id: 'o__n-1234567',
  repo: 'o/n',
  base_commit: 'abcdef1',
  problem_statement: 'x',
  patch: 'diff --git a/src/index.ts b/src/index.ts\n',
  test_patch: 'diff --git a/src/cases.spec.ts b/src/cases.spec.ts\ndiff --git a/README.md b/README.md\n',
  FAIL_TO_PASS: ['src/index.spec.ts > parse > works'],
  PASS_TO_PASS: ['src/other.spec.ts > x', 'evil; rm -rf / > x'],
  ...over,
});

describe('grading a JavaScript instance', () => {
  it('the parser is the instance’s, else its runner’s usual one', () => {
    expect(jsParserOf(instance({ log_parser: 'parse_log_karma' }), 'jest')).toBe('parse_log_karma');
    expect(jsParserOf(instance({}), 'jest')).toBe('parse_log_jest');
    expect(jsParserOf(instance({}), 'vitest')).toBe('parse_log_vitest');
    expect(jsParserOf(instance({}), 'mocha')).toBe('parse_log_mocha');
    expect(jsParserOf(instance({ log_parser: 'parse_log_pytest' }), 'ava')).toBe('parse_log_tap');
  });

  it("the runner gets the test patch's test files, and the files vitest names start with", () => {
    expect(jsTestTarget(instance({}), 'parse_log_vitest')).toBe(
      'src/cases.spec.ts src/index.spec.ts src/other.spec.ts',
    );
    expect(jsTestTarget(instance({}), 'parse_log_jest')).toBe('src/cases.spec.ts');
    expect(
      jsTestTarget(instance({ test_patch: 'diff --git a/README.md b/README.md\n' }), 'parse_log_jest'),
    ).toBe('.');
  });

  it('names with spaces are looked up exactly: a name is no prefix of another', () => {
    const reported = harnessNames(
      new Map([['a.test.ts › parse › works well', 'passed']]),
      'parse_log_jest',
      'jest',
    );
    const graded = grade(reported, ['works'], ['works well'], true);
    expect(graded.tests).toEqual({ works: 'missing', 'works well': 'passed' });
    expect(graded.resolved).toBe(false);
  });
});

describe("the simulated model's gold edits of a JavaScript patch", () => {
  const source = [
    'function fmtShort(ms) {',
    '  if (msAbs >= mo) {',
    '    return `${Math.round(ms / mo)}mo`;',
    '  }',
    '  if (msAbs >= d) {',
    '    return `${Math.round(ms / d)}d`;',
    '  }',
    '}',
  ].join('\n');
  const patch = [
    'diff --git a/src/index.ts b/src/index.ts',
    '--- a/src/index.ts',
    '+++ b/src/index.ts',
    '@@ -2,6 +2,9 @@ function fmtShort(ms) {',
    '   if (msAbs >= mo) {',
    '     return `${Math.round(ms / mo)}mo`;',
    '   }',
    '+  if (msAbs >= w) {',
    '+    return `${Math.round(ms / w)}w`;',
    '+  }',
    '   if (msAbs >= d) {',
    '     return `${Math.round(ms / d)}d`;',
    '   }',
    '',
  ].join('\n');

  it("edit the file's module, the search widened by the hunk's context until it is found once", () => {
    const edits = goldEditsOf(patch, () => source, { javascript: true });
    expect(edits).toEqual([
      {
        selector: 'src.index',
        search: '  }\n  if (msAbs >= d) {',
        replace: '  }\n  if (msAbs >= w) {\n    return `${Math.round(ms / w)}w`;\n  }\n  if (msAbs >= d) {',
      },
    ]);
    expect(source.split(edits[0]!.search)).toHaveLength(2);
    // A Python instance's edits leave a .ts file alone, as before.
    expect(goldEditsOf(patch, () => source)).toEqual([]);
  });
});
