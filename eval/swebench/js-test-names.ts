// The names a JavaScript instance's FAIL_TO_PASS and PASS_TO_PASS lists use are the SWE-bench
// harness's: each of its JavaScript log parsers (swebench/harness/log_parsers/javascript.py, the
// Multilingual set's) keys a test by what its runner's console prints. piper reads the runner's
// machine report instead (runtime/test-output/js: file, describe blocks and title joined by ` › `),
// and each function here turns one of those records into the name the harness's parser would give
// the same test:
//
// - parse_log_jest (`jest --verbose`): the title alone, as the `✓ title (5 ms)` line shows it;
// - parse_log_jest_json (the harness's jq over `jest --json`): describe blocks and title joined by ` > `;
// - parse_log_vitest (`vitest --reporter=verbose`): file, describe blocks and title joined by ` > `;
// - parse_log_karma (karma's mocha reporter): describe blocks and title joined by ` > `;
// - parse_log_mocha: mocha's full title (describe blocks and title joined by spaces), as its tap
//   and spec reporters print it, without the `#` the tap reporter drops;
// - parse_log_tap: everything after a point's number: `- name` where the producer writes the dash
//   (node:test, node-tap, ava), the name alone where it does not (tape, mocha's tap reporter);
//   a skipped point passes there, its directive part of its name.
//
// Each name goes through the harness's own pattern for its line (a trailing duration-like word is
// cut, as there). Two tests the parser names alike are one name: the worse status stands (the
// harness keeps the last line's, so an instance's lists never hold such a name for a test that can
// differ from its twin).
import { ID_JOIN } from '../../runtime/test-output/js/reading.js';
import type { TestStatus } from './test-grade.js';

const JS_LOG_PARSERS = [
  'parse_log_jest',
  'parse_log_jest_json',
  'parse_log_vitest',
  'parse_log_karma',
  'parse_log_mocha',
  'parse_log_tap',
] as const;
export type JsLogParser = (typeof JS_LOG_PARSERS)[number];

export function isJsLogParser(name: string | undefined): name is JsLogParser {
  return (JS_LOG_PARSERS as readonly string[]).includes(name ?? '');
}

/** The parser an instance of a repository with this runner is named by when it names none. */
export function defaultJsParser(runner: string | undefined): JsLogParser {
  if (runner === 'jest') return 'parse_log_jest';
  if (runner === 'vitest') return 'parse_log_vitest';
  if (runner === 'mocha') return 'parse_log_mocha';
  return 'parse_log_tap';
}

/** A record's parts: for jest's and vitest's reports the file first, then describe blocks and title. */
type Parts = readonly string[];

/** jest's verbose line `✓ title (5 ms)`, read by parse_log_jest's pattern. */
export function jestVerboseName(parts: Parts): string | null {
  if (parts.length < 2) return null;
  return throughPattern(`✓ ${parts.at(-1)!}`, /^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$/);
}

/** The harness's jq line over jest's JSON report: `[PASSED] describe > title`. */
function jestJsonName(parts: Parts): string | null {
  if (parts.length < 2) return null;
  return parts.slice(1).join(' > ');
}

/** vitest's verbose line `✓ file > describe > title 3ms`, read by parse_log_vitest's pattern. */
export function vitestVerboseName(parts: Parts): string | null {
  if (parts.length < 2) return null;
  return throughPattern(`✓ ${parts.join(' > ')}`, /^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$/);
}

/** karma's mocha reporter's nesting, which parse_log_karma joins with ` > ` (no file). */
function karmaName(parts: Parts): string | null {
  if (parts.length < 2) return null;
  return parts.slice(1).join(' > ');
}

/** mocha's full title (its JSON report's record is file, then full title). */
function mochaName(parts: Parts): string | null {
  if (parts.length < 2) return null;
  return parts.slice(1).join(' ').replace(/#/g, '').trim();
}

/** TAP producers that write `ok 1 - name`; the others write `ok 1 name`. */
const DASHED = new Set(['node-test', 'tap', 'ava']);

/**
 * parse_log_tap's name: the point's text after its number. A subtest's point is a line of its own,
 * so a nested record names its leaf; ava's points are flat and name the file with ` › ` themselves.
 */
export function tapName(parts: Parts, runner: string | undefined, skipped = false): string | null {
  const leaf = parts.at(-1);
  if (leaf === undefined || leaf === '') return null;
  const name = runner === 'mocha' ? mochaName(parts) : runner === 'ava' ? parts.join(ID_JOIN) : leaf;
  if (name === null) return null;
  const text = `${DASHED.has(runner ?? '') ? '- ' : ''}${name}${skipped ? ' # SKIP' : ''}`;
  return throughPattern(`ok 1 ${text}`, /^(ok|not ok) (\d+) (.+)$/, 3);
}

function throughPattern(line: string, pattern: RegExp, group = 2): string | null {
  const m = pattern.exec(line.trim());
  return m?.[group] ?? null;
}

const RANK: Record<TestStatus, number> = { passed: 0, skipped: 1, missing: 2, failed: 3, error: 4 };

/**
 * piper's per-test outcomes (its JavaScript readers' ids) named as `parser` names them; `runner`
 * is the project's (it says how a TAP producer writes its points). A record the parser has no
 * line for (a file that did not load) names nothing: its tests are missing, as in the harness.
 */
export function harnessNames(
  outcomes: ReadonlyMap<string, TestStatus>,
  parser: JsLogParser,
  runner: string | undefined,
): Map<string, TestStatus> {
  const named = new Map<string, TestStatus>();
  for (const [id, status] of outcomes) {
    const parts = id.split(ID_JOIN);
    const tapSkip = parser === 'parse_log_tap' && status === 'skipped';
    const name = nameOf(parser, parts, runner, tapSkip);
    if (name === null) continue;
    const word: TestStatus = tapSkip ? 'passed' : status;
    const before = named.get(name);
    if (before === undefined || RANK[word] > RANK[before]) named.set(name, word);
  }
  return named;
}

function nameOf(parser: JsLogParser, parts: Parts, runner: string | undefined, skip: boolean): string | null {
  switch (parser) {
    case 'parse_log_jest':
      return jestVerboseName(parts);
    case 'parse_log_jest_json':
      return jestJsonName(parts);
    case 'parse_log_vitest':
      return vitestVerboseName(parts);
    case 'parse_log_karma':
      return karmaName(parts);
    case 'parse_log_mocha':
      return mochaName(parts);
    case 'parse_log_tap':
      return tapName(parts, runner, skip);
  }
}
