// Work bounded by the input: every pattern the planner runs over a repository's text is linear, and
// include graphs (requirements -r, PEP 735 include-group) and markers are walked with bounds. Each
// adversarial input below is a few MB, and made so that the quadratic (or exponential) form would
// take minutes (or hours): finishing in well under a second is a bound 100x from normal, not a
// benchmark.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { parseMarker, parseRequirement } from '../../runtime/env/plan/read/pep508.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import { readRequirementsFiles } from '../../runtime/env/plan/deps/requirements-file.js';
import {
  importsPytest,
  includedHeaders,
  setsExtModules,
  setupRequiresScm,
  usesUnittestTestCase,
} from '../../runtime/env/plan/read/text-scan.js';
import { appendAll, maxOf } from '../../runtime/text/append.js';
import { choosePython } from '../../runtime/env/plan/python-choice.js';
import { RequirementSet } from '../../runtime/env/plan/merge.js';
import { evaluateMarker } from '../../runtime/env/plan/read/marker.js';
import { markerEnvironment } from '../../runtime/env/plan/read/marker-env.js';
import { redactUrl } from '../../runtime/env/plan/read/redact.js';

const FAR_UNDER_A_SECOND = 1000;

function timed<T>(work: () => T): T {
  const start = performance.now();
  const result = work();
  expect(performance.now() - start).toBeLessThan(FAR_UNDER_A_SECOND);
  return result;
}

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-bounds-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

const BLANK = '\n'.repeat(4 * 1024 * 1024);

describe('the planner’s patterns over repository text are linear', () => {
  it('a test module of blank lines, or of `unittest` without TestCase', () => {
    expect(timed(() => importsPytest(BLANK))).toBe(false);
    expect(timed(() => importsPytest(`${BLANK}   import pytest\n`))).toBe(true);
    expect(timed(() => usesUnittestTestCase('unittest '.repeat(400_000)))).toBe(false);
    expect(
      timed(() => usesUnittestTestCase(`import unittest\n${BLANK}class T(unittest.TestCase): pass`)),
    ).toBe(true);
  });

  it('a setup.cfg of blank lines, or of many setup_requires keys', () => {
    expect(timed(() => setupRequiresScm(BLANK))).toBe(false);
    expect(timed(() => setupRequiresScm('setup_requires = x\n'.repeat(200_000)))).toBe(false);
    expect(timed(() => setupRequiresScm(`[options]\n${BLANK}setup_requires =\n    setuptools_scm\n`))).toBe(
      true,
    );
  });

  it('C sources and pyproject.toml of blank lines', () => {
    expect(timed(() => includedHeaders(`${BLANK}#include <zlib.h>\n`))).toEqual(['zlib.h']);
    expect(timed(() => setsExtModules(BLANK))).toBe(false);
  });
});

describe('include graphs and markers are walked with bounds', () => {
  it('-r includes that fan out are read once each (31 files, each including the next twice)', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 31; i++)
      files[`r${i}.txt`] = i === 30 ? 'attrs\n' : `-r r${i + 1}.txt\n-r r${i + 1}.txt\n`;
    const result = timed(() => readRequirementsFiles(new RepoReader(repo(files)), 'r0.txt'));
    expect(result.files).toHaveLength(31);
    expect(result.problems.filter((p) => p.reason.includes('included again: read once'))).toHaveLength(30);
  });

  it('a marker nested 5,000 deep, or of 100,000 comparisons, is a precise error', () => {
    const deep = `${'('.repeat(5000)}python_version > "3"${')'.repeat(5000)}`;
    expect(() => parseMarker(deep)).toThrow(/a marker nested deeper than 32 parentheses/);
    const long = Array(100_000).fill('python_version > "3"').join(' and ');
    expect(() => timed(() => parseRequirement(`x; ${long}`))).toThrow(
      /a marker of more than 256 comparisons/,
    );
  });

  it('PEP 735 include-group: a 2^18 fan-out resolves each group once; an 8,000-deep chain is refused', () => {
    const fan = ['[dependency-groups]', 'test = [{include-group = "g0"}, {include-group = "g0"}]'];
    for (let i = 0; i < 18; i++)
      fan.push(`g${i} = [{include-group = "g${i + 1}"}, {include-group = "g${i + 1}"}]`);
    fan.push('g18 = ["attrs"]');
    const plan = timed(() => planEnvironment(repo({ 'pyproject.toml': `${fan.join('\n')}\n` })));
    expect(plan.requirements.map((r) => r.name)).toEqual(['attrs']);

    const chain = ['[dependency-groups]', 'test = [{include-group = "c0"}]'];
    for (let i = 0; i < 8000; i++) chain.push(`c${i} = [{include-group = "c${i + 1}"}]`);
    chain.push('c8000 = ["attrs"]');
    expect(() => planEnvironment(repo({ 'pyproject.toml': `${chain.join('\n')}\n` }))).toThrow(
      /include-group chain deeper than 64 groups \(test → … → c63\)/,
    );
  });
});

describe('version specifiers are bounded: 64 clauses, 128 characters a version', () => {
  const clauses = (n: number) => Array.from({ length: n }, (_, i) => `!=1.${i}`).join(',');

  it('a requires-python of 100,000 clauses is not read, in one line; the plan goes on', () => {
    const plan = timed(() =>
      planEnvironment(
        repo({
          'pyproject.toml': `[project]\nname = "x"\nversion = "1"\nrequires-python = "${clauses(100_000)}"\ndependencies = ["attrs"]\n`,
        }),
      ),
    );
    expect(plan.python).toBe('3.13');
    expect(plan.requirements.map((r) => r.name)).toContain('attrs');
    const line = plan.decisions.find((d) => d.includes('requires-python'))!;
    expect(line).toMatch(
      /^Python 3\.13 on Debian trixie: the default; requires-python "!=1\.0,!=1\.1,.*… \(\d+ characters\)" \(pyproject\.toml \[project\]\.requires-python\) was not read: it has more than 64 clauses, the most a specifier may have$/,
    );
    expect(line.length).toBeLessThan(400);
  });

  it('a requires-python within the bounds still chooses: "<3.12" gives 3.11, 64 clauses are read', () => {
    const recipe = {} as Parameters<typeof choosePython>[0];
    const from = 'pyproject.toml [project].requires-python';
    expect(choosePython(recipe, undefined, { specifier: '>=3.8,<3.12', from }, []).python).toBe('3.11');
    const sixtyFour = `<3.12,${clauses(63)}`;
    expect(choosePython(recipe, undefined, { specifier: sixtyFour, from }, []).python).toBe('3.11');
    const long = choosePython(recipe, undefined, { specifier: `<3.12,${clauses(64)}`, from }, []);
    expect(long.python).toBe('3.13');
    expect(long.decision).toContain('was not read: it has more than 64 clauses');
    const version = choosePython(recipe, undefined, { specifier: `>=3.${'0'.repeat(1_000_000)}`, from }, []);
    expect(version.decision).toContain(
      'was not read: a clause is longer than the 128 characters a version may have',
    );
  });

  it('a requirement of 100,000 clauses, or with a version of a million characters, is a short error', () => {
    const error = (line: string) => {
      try {
        timed(() => parseRequirement(line));
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    const many = error(`foo${clauses(100_000)}`);
    expect(many).toMatch(/a version specifier of more than 64 clauses/);
    expect(many.length).toBeLessThan(500);
    expect(error(`foo${clauses(64)}`)).toBe('');
    const long = error(`foo>=1${'.0'.repeat(500_000)}`);
    expect(long).toMatch(/a version of more than 128 characters at column 6/);
    expect(long.length).toBeLessThan(500);
  });

  it('one distribution named 100,000 times keeps 64 distinct clauses, said once', () => {
    const set = new RequirementSet('3.13');
    const lines = Array.from({ length: 1000 }, (_, i) => parseRequirement(`foo!=1.${i}`));
    timed(() => {
      for (let i = 0; i < 100_000; i++) set.add(lines[i % 1000]!, `requirements.txt:${i + 1}`, 'test');
    });
    const [foo] = set.planned();
    expect(foo!.specifier.split(',')).toHaveLength(64);
    expect(foo!.from.split('; ')).toHaveLength(100_000);
    expect(set.decisions).toEqual([
      'foo: its sources name more than 64 distinct version clauses, the most a specifier may have; !=1.64 (requirements.txt:65) and any later ones are not applied',
    ]);
  });

  it('a marker compares a long or comma-joined string as a string, not as a specifier', () => {
    const env = markerEnvironment('3.13', '');
    const marker = (text: string) => parseRequirement(`x; ${text}`).marker!;
    // As strings: "3.13" sorts before "3.8,…".
    expect(timed(() => evaluateMarker(marker(`python_version < "3.8,${clauses(1000)}"`), env))).toBe(true);
    expect(timed(() => evaluateMarker(marker(`python_version < "3${'.0'.repeat(500_000)}"`), env))).toBe(
      false,
    );
    expect(evaluateMarker(marker('python_version >= "3.8"'), env)).toBe(true);
  });

  it('a URL’s userinfo is found in linear time (4 MB of `a.a.a…`)', () => {
    const text = 'a.'.repeat(2_000_000);
    expect(timed(() => redactUrl(text))).toBe(text);
    expect(timed(() => redactUrl(`${text} https://u:p@h/${text}`))).toBe(`${text} https://***@h/${text}`);
  });
});

describe('input-sized lists are never spread into a call', () => {
  it('appendAll and maxOf take 1,000,000 items', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(appendAll([], many)).toHaveLength(1_000_000);
    expect(maxOf(many)).toBe(999_999);
    expect(maxOf([])).toBe(0);
  });
});
