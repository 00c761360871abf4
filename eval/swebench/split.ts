// A fix commit split as SWE-bench splits a pull request: the test files are the test_patch, every
// other file is the (gold) patch. The same rule is used for candidates and for checking the set.
import { git } from './git.js';

/**
 * A test file: under a tests/test/testing/__tests__ directory, named test_*.py, *_test.py or
 * conftest.py, or a JavaScript/TypeScript test or spec file (`index.test.ts`, `cases.spec.ts`,
 * a root `test.js` as ava's and mocha's small projects keep it).
 */
export function isTestPath(path: string): boolean {
  return (
    /(^|\/)(tests?|testing|__tests__)\//.test(path) ||
    /(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/.test(path) ||
    /\.(test|spec)\.[cm]?[jt]sx?$/.test(path) ||
    /^test(\.[\w-]+)?\.[cm]?[jt]sx?$/.test(path)
  );
}

/** A test module pytest collects by default (what the miner runs), not a helper or conftest. */
export function isTestModule(path: string): boolean {
  return /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(path);
}

export interface SplitCommit {
  commit: string;
  parent: string;
  createdAt: string;
  subject: string;
  testFiles: string[];
  codeFiles: string[];
  patch: string;
  testPatch: string;
}

/** The commit's changed files split into code and tests, and the two diffs against its parent. */
export function splitCommit(repo: string, commit: string): SplitCommit {
  const [parent, createdAt, ...subject] = git(repo, ['show', '-s', '--format=%P%n%aI%n%s', commit])
    .trimEnd()
    .split('\n');
  const files = git(repo, ['diff', '--no-ext-diff', '--name-only', '--no-renames', parent!, commit])
    .split('\n')
    .filter(Boolean);
  const testFiles = files.filter(isTestPath);
  const codeFiles = files.filter((f) => !isTestPath(f));
  const diff = (paths: string[]) =>
    paths.length
      ? git(repo, ['diff', '--no-ext-diff', '--no-renames', '--binary', parent!, commit, '--', ...paths])
      : '';
  return {
    commit,
    parent: parent!,
    createdAt: createdAt!,
    subject: subject.join(' '),
    testFiles,
    codeFiles,
    patch: diff(codeFiles),
    testPatch: diff(testFiles),
  };
}

/**
 * The non-merge commits since `since` (newest first) that change a Python file outside
 * the tests and a test file, and whose subject matches: SWE-bench's construction, a fix with its test.
 */
export function candidateCommits(repo: string, since: string, subject: RegExp): string[] {
  const log = git(repo, ['log', '--no-merges', `--since=${since}`, '--format=%x00%H %s', '--name-only']);
  const out: string[] = [];
  for (const block of log.split('\0').filter(Boolean)) {
    const [head, ...files] = block.trim().split('\n').filter(Boolean);
    const [hash, ...words] = (head ?? '').split(' ');
    if (!subject.test(words.join(' '))) continue;
    const tests = files.some(isTestPath);
    const code = files.some(
      (f) =>
        !isTestPath(f) &&
        f.endsWith('.py') &&
        !/(^|\/)(setup|noxfile)\.py$/.test(f) &&
        !f.startsWith('docs/'),
    );
    if (hash && tests && code) out.push(hash);
  }
  return out;
}
