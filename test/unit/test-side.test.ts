// Which files are a repository's test side: a run that edits one is never `resolved` (the repro is
// judged as written). By name, for every project alike.
import { describe, expect, it } from 'vitest';
import { isTestSide } from '../../primitives/regression/test-side.js';

describe('isTestSide', () => {
  const target = 'tests/test_words.py::test_top_words';
  it.each([
    'tests/test_words.py',
    'tests/helpers.py',
    'pkg/tests/data.py',
    'conftest.py',
    'src/pkg/conftest.py',
    'test_root.py',
    'pkg/thing_test.py',
    'testing/test_x.py',
    'pytest.ini',
    'pyproject.toml',
  ])('%s is on the test side', (path) => expect(isTestSide(path, target)).toBe(true));

  it.each(['textstats/words.py', 'src/numpy/testing/utils.py', 'pkg/latest.py', 'contest.py'])(
    '%s is not',
    (path) => expect(isTestSide(path, target)).toBe(false),
  );

  it('names what the target names: a file, a directory, a -p plugin', () => {
    expect(isTestSide('checks/verify.py', 'checks/verify.py::test_a')).toBe(true);
    expect(isTestSide('suite/a/b.py', 'python -m pytest suite/ -q')).toBe(true);
    expect(isTestSide('myplugins/strict.py', 'pytest -p myplugins.strict suite/')).toBe(true);
    expect(isTestSide('myplugins/other.py', 'pytest -p myplugins.strict suite/')).toBe(false);
  });
});
