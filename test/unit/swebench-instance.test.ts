// The SWE-bench-format reader (eval/swebench/instance.ts), the -rA outcome parser and grading rule
// (test-outcomes.ts), the --debian flag (debian.ts) and the repository names --repos is searched
// for (repos.ts): pure code, on the fixture set and on hand-made broken lines.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { debianOf, parseDebian } from '../../eval/swebench/debian.js';
import { instanceDigest, InstanceSetError, loadInstances } from '../../eval/swebench/instance-file.js';
import { enclosingNames, goldEditsOf } from '../../eval/swebench/gold-edits.js';
import { candidateNames, patchedFiles } from '../../eval/swebench/repos.js';
import { grade, parseOutcomes, pytestTarget } from '../../eval/swebench/test-grade.js';

const FIXTURE = join(__dirname, '../fixtures/swebench/instances.jsonl');

function setFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'swe-unit-')), name);
  writeFileSync(file, text);
  return file;
}

function problemsOf(file: string): string[] {
  try {
    loadInstances(file);
  } catch (error) {
    if (error instanceof InstanceSetError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadInstances', () => {
  it('reads the fixture set with the test lists decoded from their JSON strings', () => {
    const set = loadInstances(FIXTURE);
    expect(set.map((i) => i.instance_id)).toEqual([
      'tkem__cachetools-387',
      'tkem__cachetools-130',
      'tkem__cachetools-130-docstring-only',
    ]);
    expect(set[0]!.FAIL_TO_PASS).toEqual([
      'tests/test_cachedmethod.py::AutospecTest::test_autospec_no_warnings',
    ]);
    expect(set[1]!.PASS_TO_PASS).toHaveLength(3);
  });

  it('keeps each patch byte for byte: a last context line of one space is part of the diff', () => {
    const raw = JSON.parse(readFileSync(FIXTURE, 'utf8').trim().split('\n')[2]!) as { patch: string };
    expect(raw.patch.endsWith('\n \n')).toBe(true);
    expect(loadInstances(FIXTURE)[2]!.patch).toBe(raw.patch);
  });

  it('reads a .json array and accepts decoded lists', () => {
    const [first] = loadInstances(FIXTURE);
    const file = setFile('set.json', JSON.stringify([{ ...first, PASS_TO_PASS: ['a.py::t'] }]));
    expect(loadInstances(file)[0]!.PASS_TO_PASS).toEqual(['a.py::t']);
  });

  it('names the line, the instance and the field of every problem', () => {
    const [first] = loadInstances(FIXTURE);
    const lines = [
      JSON.stringify(first),
      '{not json',
      JSON.stringify({ ...first, instance_id: 'x-2', FAIL_TO_PASS: '[1, 2]' }),
      JSON.stringify({ ...first, instance_id: 'x-3', base_commit: 'HEAD', repo: 'noslash' }),
      '',
      JSON.stringify(first),
    ];
    const problems = problemsOf(setFile('set.jsonl', lines.join('\n')));
    expect(problems[0]).toMatch(/^line 2: not JSON/);
    expect(problems[1]).toBe(
      'line 3 (instance x-2): FAIL_TO_PASS: not a JSON-encoded list of test id strings',
    );
    expect(problems).toContain('line 4 (instance x-3): repo: owner/name');
    expect(problems.some((p) => p.startsWith('line 4 (instance x-3): base_commit:'))).toBe(true);
    expect(problems.at(-1)).toBe('line 6 (instance tkem__cachetools-387): instance_id is also at line 1');
  });

  it('refuses an empty FAIL_TO_PASS, a missing patch and an id that could name a path', () => {
    const [first] = loadInstances(FIXTURE);
    const { patch: _p, ...noPatch } = first!;
    const file = setFile(
      'set.json',
      JSON.stringify([{ ...first, FAIL_TO_PASS: '[]' }, noPatch, { ...first, instance_id: '../x' }]),
    );
    const problems = problemsOf(file);
    expect(problems).toContain(
      '[0] (instance tkem__cachetools-387): FAIL_TO_PASS: FAIL_TO_PASS names no test',
    );
    expect(problems.some((p) => p.startsWith('[1] (instance tkem__cachetools-387): patch:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('[2] (instance ../x): instance_id:'))).toBe(true);
  });

  it('digests what decides the outcome, not the hints', () => {
    const [first] = loadInstances(FIXTURE);
    const d = instanceDigest(first!, 'bookworm');
    expect(instanceDigest({ ...first!, hints_text: 'another hint' }, 'bookworm')).toBe(d);
    expect(instanceDigest({ ...first!, patch: `${first!.patch}\n` }, 'bookworm')).not.toBe(d);
    expect(instanceDigest(first!, 'trixie')).not.toBe(d);
  });
});

describe('outcomes and grading', () => {
  const stdout = [
    '=== short test summary info ===',
    'PASSED tests/a.py::T::test_one',
    'PASSED tests/a.py::test_p[a b]',
    'FAILED tests/a.py::test_two - AssertionError: 1 != 2',
    'PASSED tests/a.py::test_three',
    'ERROR tests/a.py::test_three - teardown',
    'XFAIL tests/a.py::test_x - reason',
    "PASSED tests/g.py::test_cmp[c < now - interval '1 day'-Token]",
    'FAILED tests/g.py::test_cmp[a - b] - AssertionError: [1] - [2]',
    'FAILED tests/g.py::test_plain - assert [1] == [2]',
    'SKIPPED [1] tests/g.py:12: needs numpy',
  ].join('\n');

  it('reads every -rA line, ids with spaces included; a teardown error outranks a pass', () => {
    const out = parseOutcomes(stdout);
    expect(Object.fromEntries(out)).toEqual({
      'tests/a.py::T::test_one': 'passed',
      'tests/a.py::test_p[a b]': 'passed',
      'tests/a.py::test_two': 'failed',
      'tests/a.py::test_three': 'error',
      // The harness's test_passed takes an expected failure as a pass.
      'tests/a.py::test_x': 'passed',
      // A parametrize id holding " - " is whole, whether or not a message follows it.
      "tests/g.py::test_cmp[c < now - interval '1 day'-Token]": 'passed',
      'tests/g.py::test_cmp[a - b]': 'failed',
      'tests/g.py::test_plain': 'failed',
    });
  });

  it('resolves iff every FAIL_TO_PASS and PASS_TO_PASS test passed; an unreported one is missing', () => {
    const out = parseOutcomes(stdout);
    expect(grade(out, ['tests/a.py::T::test_one'], ['tests/a.py::test_p[a b]']).resolved).toBe(true);
    const g = grade(out, ['tests/a.py::T::test_one', 'tests/a.py::gone'], ['tests/a.py::test_two']);
    expect(g.resolved).toBe(false);
    expect(g.tests['tests/a.py::gone']).toBe('missing');
    expect(g.failToPass).toEqual({ passed: 1, total: 2 });
    expect(g.passToPass).toEqual({ passed: 0, total: 1 });
  });

  it('counts a skipped test neither way, as the harness does: it does not fail the instance', () => {
    const out = parseOutcomes('PASSED t.py::test_a\nSKIPPED t.py::test_b\nXPASS t.py::test_c\n');
    const g = grade(out, ['t.py::test_a'], ['t.py::test_b', 't.py::test_c']);
    expect(g.tests).toEqual({
      't.py::test_a': 'passed',
      't.py::test_b': 'skipped',
      't.py::test_c': 'skipped',
    });
    expect(g.resolved).toBe(true);
    expect(g.passToPass).toEqual({ passed: 0, total: 2 });
    expect(grade(out, ['t.py::test_a'], ['t.py::test_b', 't.py::gone']).resolved).toBe(false);
  });

  it("answers for an id the harness cut at the first space with the full id's status", () => {
    const out = parseOutcomes(stdout);
    const g = grade(out, ['tests/g.py::test_cmp[c'], ['tests/a.py::test_p[a']);
    expect(g.tests).toEqual({ 'tests/g.py::test_cmp[c': 'passed', 'tests/a.py::test_p[a': 'passed' });
  });

  it("reads a status line's second word as an id, as the harness does, only where the instance names it", () => {
    // pytest's own suite: a nested run's verbose line, its status wrapped onto a line of its own.
    const nested = `${stdout}\ntesting/test_x.py::test_inner_with_a_long_name\nPASSED [100%]\nFAILED [ 50%]`;
    const named = ['[100%]', '[ 50%]', 'tests/a.py::T::test_one'];
    const g = grade(parseOutcomes(nested, 'pytest', named), [], named);
    expect(g.tests).toEqual({ '[100%]': 'passed', '[ 50%]': 'missing', 'tests/a.py::T::test_one': 'passed' });
    // Not named: not read (a skip's `[1]` is no test).
    expect(parseOutcomes(nested).has('[100%]')).toBe(false);
    expect(parseOutcomes(nested, 'pytest', ['[1]']).get('[1]')).toBe('skipped');
  });

  it("keeps a repeated status token's last word, as the harness's parser does", () => {
    // pytest's logging tests: one nested run prints `FAILED [100%]`, later ones `PASSED [100%]`;
    // the dataset labels `[100%]` by the last line, so the worst word would fail a passing test.
    const named = ['[100%]'];
    const failedThenPassed = `${stdout}\nFAILED   [100%]\nPASSED   [100%]`;
    expect(grade(parseOutcomes(failedThenPassed, 'pytest', named), [], named).tests).toEqual({
      '[100%]': 'passed',
    });
    const passedThenFailed = `${stdout}\nPASSED   [100%]\nFAILED   [100%]`;
    expect(grade(parseOutcomes(passedThenFailed, 'pytest', named), [], named).tests).toEqual({
      '[100%]': 'failed',
    });
  });

  it("reads a path option by its last segment, as the harness's parser for path-parametrized suites does", () => {
    // pylint's test_stdin, run in /work (the harness ran it in /testbed): the dataset writes [/mymodule.py].
    const out = [
      'PASSED tests/test_self.py::TestRunTC::test_stdin[/work/tests/mymodule.py-mymodule-/work/tests/mymodule.py]',
      'PASSED tests/test_self.py::TestRunTC::test_stdin[mymodule.py-mymodule-mymodule.py]',
      'FAILED tests/test_util.py::test_glob[/work/data/*.txt] - AssertionError',
    ].join('\n');
    const named = [
      'tests/test_self.py::TestRunTC::test_stdin[/mymodule.py]',
      'tests/test_self.py::TestRunTC::test_stdin[mymodule.py-mymodule-mymodule.py]',
      'tests/test_util.py::test_glob[/*.txt]',
    ];
    expect(grade(parseOutcomes(out, 'pytest', named), [], named).tests).toEqual({
      'tests/test_self.py::TestRunTC::test_stdin[/mymodule.py]': 'passed',
      'tests/test_self.py::TestRunTC::test_stdin[mymodule.py-mymodule-mymodule.py]': 'passed',
      // A glob is kept whole by the harness: no short form.
      'tests/test_util.py::test_glob[/*.txt]': 'missing',
    });
    // Not named: only the ids as printed.
    expect(parseOutcomes(out).has('tests/test_self.py::TestRunTC::test_stdin[/mymodule.py]')).toBe(false);
    // The sandbox's output is untrusted: an id of 200,000 `[` is read in linear time.
    const t0 = Date.now();
    parseOutcomes(`PASSED t.py::x${'['.repeat(200_000)}\n`, 'pytest', ['t.py::x[/y]']);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('quotes each id for the shell', () => {
    expect(pytestTarget(["t.py::x[it's]", 't.py::y'])).toBe(
      `python3 -m pytest -rA -p no:cacheprovider 't.py::x[it'\\''s]' 't.py::y'`,
    );
  });
});

describe('--debian and --repos names', () => {
  it('takes one release or a mapping by version', () => {
    const [first] = loadInstances(FIXTURE);
    expect(debianOf(parseDebian('bookworm'), first!)).toBe('bookworm');
    const map = parseDebian('7.0.2=trixie,*=bookworm');
    expect(debianOf(map, first!)).toBe('trixie');
    expect(debianOf(map, { ...first!, version: '1.0' })).toBe('bookworm');
    expect(debianOf(parseDebian('7.0.2=trixie'), { ...first!, version: '1.0' })).toBeUndefined();
    expect(() => parseDebian('buster')).toThrow(/'buster' is not a Debian release the sandbox has/);
    expect(() => parseDebian('1=bookworm=x')).toThrow(/is not VERSION=RELEASE/);
  });

  it('looks for owner__name and name, each with and without .bundle', () => {
    expect(candidateNames('tkem/cachetools')).toEqual([
      'tkem__cachetools',
      'tkem__cachetools.bundle',
      'cachetools',
      'cachetools.bundle',
    ]);
    const [first] = loadInstances(FIXTURE);
    expect(patchedFiles(first!.test_patch)).toEqual(['tests/test_cachedmethod.py']);
  });
});

describe('the gold patch as edits for the simulated model', () => {
  const set = loadInstances(FIXTURE);
  // The base file as far as the hunk needs it: the class, then __get__ at line 78 (as at base_commit).
  const base = [
    'class _DescriptorBase:',
    '',
    '    def __init__(self):',
    '        pass',
    '',
    ...Array<string>(72).fill('    #'),
    '    def __get__(self, obj, objtype=None):',
    '        wrapper = self.Wrapper(obj)',
    '        if self.__attrname is not None:',
  ].join('\n');

  it('edits the innermost def around each hunk, with the hunk changed lines as search and replace', () => {
    const edits = goldEditsOf(set[0]!.patch, (file) => (file.endsWith('_cachedmethod.py') ? base : null));
    expect(edits).toEqual([
      {
        selector: 'src.cachetools._cachedmethod._DescriptorBase.__get__',
        search: '        if self.__attrname is not None:',
        replace: expect.stringMatching(
          /^ {8}if obj is None:\n[\s\S]*\n {8}elif self.__attrname is not None:$/,
        ),
      },
    ]);
  });

  it('leaves out hunks whose file is not in the base tree', () => {
    expect(goldEditsOf(set[1]!.patch, () => null)).toEqual([]);
  });

  it('finds the enclosing names by indentation', () => {
    const source = 'class A:\n    x = 1\n\n    def f(self):\n        if x:\n            return 1\n';
    expect(enclosingNames(source, 6)).toEqual(['A', 'f']);
    expect(enclosingNames(source, 2)).toEqual(['A']);
    // A changed header is its own entity.
    expect(enclosingNames(source, 1)).toEqual(['A']);
    expect(enclosingNames(source, 3)).toEqual([]);
  });

  // The shapes of real gold patches (sqlparse, itsdangerous, cachetools) that once went to the wrong
  // entity or to none.
  const source = [
    'class F:', // 1
    '    def process(self, tlist):', // 2
    '        def insert_token(token):', // 3
    '            return token', // 4
    '', // 5
    '        while token:', // 6
    '            tlist.remove(token)', // 7
    '            token = None', // 8
    '', // 9
    '        return tlist', // 10
    '', // 11
    '', // 12
    'def other(a):', // 13
    '    return a', // 14
  ].join('\n');
  const patch = (hunk: string) => `--- a/m.py\n+++ b/m.py\n${hunk}\n`;
  const editsOf = (hunk: string) => goldEditsOf(patch(hunk), () => source);

  it('does not put a line after a nested def that has ended inside that def', () => {
    const [edit] = editsOf(
      '@@ -7,2 +7,3 @@\n             tlist.remove(token)\n+            token = 1\n             token = None',
    );
    expect(edit!.selector).toBe('m.F.process');
    expect(enclosingNames(source, 7)).toEqual(['F', 'process']);
  });

  it('anchors an insertion after a blank line on the line before it, in the entity it goes into', () => {
    const [edit] = editsOf(
      '@@ -8,3 +8,4 @@\n             token = None\n \n+        assert tlist\n         return tlist',
    );
    expect(edit).toEqual({
      selector: 'm.F.process',
      search: '            token = None\n',
      replace: '            token = None\n\n        assert tlist',
    });
  });

  it('reads through the closing bracket of a wrapped signature', () => {
    const wrapped = 'class C:\n    def __init__(\n        self,\n    ) -> None:\n        self.x = 1\n';
    expect(enclosingNames(wrapped, 5)).toEqual(['C', '__init__']);
  });

  it('gives a changed signature to its own def', () => {
    const [edit] = editsOf('@@ -13,2 +13,2 @@\n-def other(a):\n+def other(a, b=None):\n     return a');
    expect(edit!.selector).toBe('m.other');
  });

  it('leaves a module-level insertion before a def to no entity', () => {
    expect(editsOf('@@ -11,3 +11,5 @@\n \n+X = 1\n+\n \n def other(a):')).toEqual([]);
  });
});
