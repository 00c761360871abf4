// Which requirements files a repository has and what each is for, from its name alone. Candidates:
// `requirements*.txt` and `*requirements*.txt` at the root (`test-requirements.txt`), every .txt
// under requirements/, and `requirements*.txt` in a test directory (`tests/requirements.txt`); a
// pip-compile input (`.in`) only when no `.txt` of the same name was compiled from it. A file whose
// other words (`requirements` aside) are all runtime words (`requirements.txt`, base, main, prod)
// holds runtime dependencies (the first such); one whose words pass the test-name rule holds test
// dependencies (every such file is read: the union); any other (docs, lint, ci) is not read.
import type { RepoReader } from '../read/repo-reader.js';
import { isTestName, TEST_WORDS } from '../tests/test-names.js';

const RUNTIME_WORDS = new Set(['', 'base', 'main', 'prod', 'production', 'runtime', 'install']);
const NAME_WORDS = new Set(['requirements', 'requirement', 'reqs']);
const TEST_DIRS = ['tests', 'test', 'testing'];

export interface RequirementFileNames {
  runtime: string | null;
  /** Every test/dev-named file, sorted. */
  test: string[];
  /** Files not read, each with why. */
  ignored: Array<{ path: string; why: string }>;
}

function words(path: string): string[] {
  const stem = path.replace(/\.(txt|in)$/i, '').toLowerCase();
  return stem.split(/[-_./]+/).filter((word) => !NAME_WORDS.has(word) && word !== '');
}

function isTestFile(path: string): boolean {
  const found = words(path);
  return found.some((word) => TEST_WORDS.includes(word)) || isTestName(found.join('-'));
}

function candidates(reader: RepoReader): string[] {
  const files = (dir: string, match: RegExp): string[] =>
    reader
      .list(dir)
      .filter((name) => match.test(name))
      .map((name) => (dir === '.' ? name : `${dir}/${name}`));
  const all = [
    ...files('.', /requirements.*\.(txt|in)$/i),
    ...files('requirements', /\.(txt|in)$/i),
    ...TEST_DIRS.flatMap((dir) => files(dir, /^requirements.*\.(txt|in)$/i)),
  ].filter((path) => reader.isFile(path));
  // A pip-compile input is read only when nothing was compiled from it.
  return all.filter((path) => !/\.in$/i.test(path) || !all.includes(path.replace(/\.in$/i, '.txt')));
}

export function requirementFileNames(reader: RepoReader): RequirementFileNames {
  const out: RequirementFileNames = { runtime: null, test: [], ignored: [] };
  for (const path of candidates(reader)) {
    const inTestDir = TEST_DIRS.some((dir) => path.startsWith(`${dir}/`));
    if (inTestDir || isTestFile(path)) out.test.push(path);
    else if (words(path).every((word) => RUNTIME_WORDS.has(word))) {
      if (out.runtime === null) out.runtime = path;
      else out.ignored.push({ path, why: `"${out.runtime}" is the runtime file` });
    } else out.ignored.push({ path, why: 'neither runtime nor test/dev-named' });
  }
  out.test.sort();
  return out;
}
