// TAP, as node:test (`--test-reporter=tap`), node-tap, tape, ava `--tap` and mocha `--reporter tap`
// write it: `ok 3 - name`, `not ok 4 - name`, a `# SKIP` or `# TODO` directive after the name, YAML
// blocks under a point, subtests indented four spaces under a `# Subtest: name` comment and closed
// by their parent's own point, and a closing block of `# pass N` / `# fail N` comments. A parent's
// point is not a test: its children are; a parent that failed with no child failing (a hook, a file
// that crashed after its passes) is an error of its own. tape, which does not nest, groups its
// assertions under a `# name` comment.
import type { TestCounts } from '../test-counts.js';
import type { SummaryWord } from '../worse-word.js';
import { ID_JOIN, Tally, workspacePath, type JsReading } from './reading.js';

const POINT = /^( *)(ok|not ok)\b(?:\s+\d+)?(?:\s+-)?\s*(.*)$/;
const SUBTEST = /^( *)# Subtest: (.*)$/;
const TRAILER = /^# (tests|pass|fail|skip|skipped|todo|cancelled|suites|duration_ms|ok|time=)\b/;
const DIRECTIVE = /\s+#\s*(SKIP|TODO)\b.*$/i;
/** tape's header of a skipped test (which has no assertions) or of a todo one (`# SKIP name`). */
const TAPE_MARK = /^# (SKIP|TODO) /;

interface Point {
  depth: number;
  ok: boolean;
  name: string;
  directive: 'SKIP' | 'TODO' | null;
}

/** Whether a text is a TAP stream: its version line, or a plan at the left edge and a point there. */
export function isTapStream(text: string): boolean {
  if (/^TAP version \d+$/m.test(text)) return true;
  return /^1\.\.\d+\s*$/m.test(text) && /^(?:not )?ok\b/m.test(text);
}

/** Each test the stream names with its word, and the counts, the closing block's passes the most. */
export function readTap(text: string): JsReading {
  const tally = new Tally();
  const names: string[] = [];
  const seen: number[] = [];
  const failed: number[] = [];
  let group = '';
  let sawSubtest = false;
  let yamlIndent: number | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const indent = /^ */.exec(line)![0].length;
    if (yamlIndent !== null) {
      if (indent === yamlIndent && line.trim() === '...') yamlIndent = null;
      continue;
    }
    if (line.trim() === '---') {
      yamlIndent = indent;
      continue;
    }
    const sub = SUBTEST.exec(line);
    if (sub) {
      const depth = Math.floor(sub[1]!.length / 4);
      names.length = depth;
      names[depth] = sub[2]!.trim();
      sawSubtest = true;
      continue;
    }
    if (/^Bail out!/.test(line.trim())) tally.put(line.trim(), 'ERROR');
    if (!sawSubtest && indent === 0 && line.startsWith('# ') && !TRAILER.test(line)) {
      const mark = TAPE_MARK.exec(line);
      group = (mark ? line.slice(mark[0].length) : line.slice(2)).trim();
      if (mark?.[1] === 'SKIP') tally.put(group, 'SKIPPED');
    }
    const point = pointOf(line);
    if (!point) continue;
    const hadChildren = (seen[point.depth + 1] ?? 0) > 0;
    const childFailed = (failed[point.depth + 1] ?? 0) > 0;
    seen.length = failed.length = point.depth + 1;
    seen[point.depth] = (seen[point.depth] ?? 0) + 1;
    const prefix = sawSubtest ? names.slice(0, point.depth) : group ? [group] : [];
    const id = [...prefix, point.name].map(workspacePath).join(ID_JOIN);
    const word = wordOf(point, hadChildren, childFailed);
    if (word === 'FAILED' || word === 'ERROR' || childFailed)
      failed[point.depth] = (failed[point.depth] ?? 0) + 1;
    if (word) tally.put(id, word);
  }
  return { outcomes: tally.outcomes, counts: withTrailer(tally.counts, text) };
}

function pointOf(line: string): Point | null {
  const m = POINT.exec(line);
  // A point is indented by whole levels; a failure's message under mocha's point is indented two.
  if (!m || m[1]!.length % 4 !== 0) return null;
  const rest = m[3]!;
  const directive = DIRECTIVE.exec(rest);
  const name = rest
    .replace(DIRECTIVE, '')
    .replace(/\s+# time=[\d.]+m?s$/, '')
    .trim();
  const kind = directive ? (directive[1]!.toUpperCase() as 'SKIP' | 'TODO') : null;
  return { depth: Math.floor(m[1]!.length / 4), ok: m[2] === 'ok', name, directive: kind };
}

/**
 * A leaf's word by its point; a parent's only when it failed with no child failing. A `not ok` under
 * TODO is a test not written yet, not a failure (TAP says so, and ava and tape mark todos that way).
 */
function wordOf(point: Point, hadChildren: boolean, childFailed: boolean): SummaryWord | null {
  if (hadChildren) return !point.ok && !point.directive && !childFailed ? 'ERROR' : null;
  if (point.directive) return 'SKIPPED';
  return point.ok ? 'PASSED' : 'FAILED';
}

/**
 * The closing block's `# pass N` caps the passes: an `ok` line a test printed itself (tape and
 * node-tap read a test's stdout as the stream) is no pass the runner counted. Only the last block,
 * and only when nothing but comments, plans and blank lines follow it, is the runner's: one a test
 * printed has the runner's points after it.
 */
function withTrailer(counts: TestCounts, text: string): TestCounts {
  const lines = text.trimEnd().split('\n');
  let at = -1;
  for (let i = lines.length - 1; i >= 0 && at < 0; i--) {
    const line = lines[i]!.trimEnd();
    if (/^# pass\s+\d+$/.test(line)) at = i;
    else if (!/^(#.*|1\.\.\d+.*|\s*)$/.test(line)) break;
  }
  if (at < 0) return counts;
  const pass = Number(/\d+/.exec(lines[at]!)![0]);
  return { ...counts, passed: Math.min(counts.passed, pass) };
}
