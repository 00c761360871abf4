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

describe('input-sized lists are never spread into a call', () => {
  it('appendAll and maxOf take 1,000,000 items', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(appendAll([], many)).toHaveLength(1_000_000);
    expect(maxOf(many)).toBe(999_999);
    expect(maxOf([])).toBe(0);
  });
});
