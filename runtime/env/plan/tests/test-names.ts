// Which names say "test dependencies": extras, dependency groups, Poetry and PDM groups, Hatch and
// nox environments, requirements files. One rule for all of them, kept simple on purpose: the
// PEP 503-normalized name is one of test, tests, testing, dev, develop, development, or its first
// or last `-`-separated word is test or tests (`test-extras`, `tests_require`, `unit-tests`,
// `hatch-test`). `latest` or `pytest` are not: a word, not a substring.
import { normalizeName } from '../read/normalize.js';

export const TEST_WORDS: readonly string[] = ['test', 'tests', 'testing', 'dev', 'develop', 'development'];
const EDGE_WORDS = new Set(['test', 'tests']);

export function isTestName(name: string): boolean {
  const normalized = normalizeName(name);
  if (TEST_WORDS.includes(normalized)) return true;
  const words = normalized.split('-').filter((word) => word !== '');
  return EDGE_WORDS.has(words[0] ?? '') || EDGE_WORDS.has(words[words.length - 1] ?? '');
}

/** The rule's name in decisions (docs/environments.md spells it out). */
export const TEST_NAME_RULE = 'test-named';
