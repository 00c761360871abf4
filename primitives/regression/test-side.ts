// Which files are the test side of a repository: what decides whether a test passes rather than
// what it tests. A run that changes one of them can make its repro test pass without fixing
// anything (an expected value edited, a skip added, a conftest hook that deselects), so the repro
// is judged on them as the base had them (as-written.ts). The rule is by name, for every project
// alike: the files the target names (and everything under a directory it names), test modules by
// pytest's and unittest's naming, anything under a test directory (`test`/`tests` anywhere, `testing`
// at the root), conftest.py anywhere, the
// runner's configuration files, and plugin modules the target loads with `-p`.
import { basename } from 'node:path';

const TEST_DIRS = new Set(['test', 'tests']);
const RUNNER_CONFIG = new Set([
  'pytest.ini',
  '.pytest.ini',
  'tox.ini',
  'setup.cfg',
  'pyproject.toml',
  'conftest.py',
]);

/** Whether `path` (repo-relative, `/` separators) is on the test side for this target. */
export function isTestSide(path: string, target: string): boolean {
  const name = basename(path);
  if (RUNNER_CONFIG.has(name)) return true;
  if (/^test_.*\.py$|^.*_test\.py$|^tests?\.py$/.test(name)) return true;
  if (
    path
      .split('/')
      .slice(0, -1)
      .some((dir) => TEST_DIRS.has(dir))
  )
    return true;
  return namedByTarget(target).some((named) => path === named || path.startsWith(`${named}/`));
}

/** The repo paths a target names: its path-like words (node ids cut at `::`) and `-p` plugins. */
function namedByTarget(target: string): string[] {
  const words = target.trim().split(/\s+/);
  const named: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!.replace(/^["']|["']$/g, '');
    if (word === '-p' && words[i + 1]) {
      const module = words[i + 1]!.replace(/\./g, '/');
      named.push(`${module}.py`, module);
      i += 1;
    } else if (!word.startsWith('-') && /[/.]/.test(word)) {
      named.push(word.split('::')[0]!.replace(/^\.\//, '').replace(/\/+$/, ''));
    }
  }
  return named.filter((p) => p !== '' && !p.startsWith('..'));
}
