// Which requirements files a repository has and what each is for, from its name alone:
// `requirements.txt` (or requirements/base|main|prod.txt) holds runtime dependencies;
// `requirements-test.txt`, `requirements_dev.txt`, `requirements/tests.txt`, `test-requirements.txt`
// ... hold test dependencies, ranked test < tests < testing < dev (the first found is read, as for
// extras and groups); any other (docs, lint) is not read.
import type { RepoReader } from './repo-reader.js';

export const TEST_NAMES = ['test', 'tests', 'testing', 'dev'] as const;
const RUNTIME_WORDS = new Set(['', 'base', 'main', 'prod', 'production', 'runtime', 'install']);

export interface RequirementFileNames {
  runtime: string | null;
  test: { path: string; name: (typeof TEST_NAMES)[number] } | null;
  /** Files not read, each with why. */
  ignored: Array<{ path: string; why: string }>;
}

function words(path: string): string[] {
  const stem = path.replace(/\.txt$/i, '').toLowerCase();
  return stem.split(/[-_./]+/).filter((word) => word !== 'requirements' && word !== 'reqs' && word !== '');
}

export function requirementFileNames(reader: RepoReader): RequirementFileNames {
  const root = reader
    .list('.')
    .filter(
      (name) =>
        /^requirements.*\.txt$/i.test(name) || /^(test|tests|testing|dev)[-_]requirements\.txt$/i.test(name),
    );
  const nested = reader
    .list('requirements')
    .filter((name) => name.toLowerCase().endsWith('.txt'))
    .map((name) => `requirements/${name}`);
  const files = [...root, ...nested].filter((path) => reader.isFile(path));
  const out: RequirementFileNames = { runtime: null, test: null, ignored: [] };
  let bestRank: number = TEST_NAMES.length;
  for (const path of files) {
    const found = words(path);
    const rank = Math.min(
      ...found.map((word) => (TEST_NAMES as readonly string[]).indexOf(word)).filter((index) => index >= 0),
      TEST_NAMES.length,
    );
    if (rank < TEST_NAMES.length) {
      if (rank < bestRank) {
        if (out.test) out.ignored.push({ path: out.test.path, why: `"${path}" ranks first` });
        out.test = { path, name: TEST_NAMES[rank] as (typeof TEST_NAMES)[number] };
        bestRank = rank;
      } else out.ignored.push({ path, why: `"${out.test?.path}" ranks first` });
    } else if (found.every((word) => RUNTIME_WORDS.has(word))) {
      if (out.runtime === null) out.runtime = path;
      else out.ignored.push({ path, why: `"${out.runtime}" is the runtime file` });
    } else out.ignored.push({ path, why: 'neither runtime nor test/dev-named' });
  }
  return out;
}
