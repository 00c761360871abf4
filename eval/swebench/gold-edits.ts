// The gold patch as edit_entity calls, for the simulated model (it reads each instance's gold patch,
// as it reads piperbench's gold edits; the agent under test never sees it). Each hunk becomes one
// edit of the innermost def or class around its first changed line: the search is the hunk's old
// lines from its first to its last change, the replace its new lines (a pure insertion carries the
// line before it in both). Hunks at module level, or outside a .py file, have no entity to edit and
// are left out: the simulator then cannot resolve that instance, which only says it is a weak model.
// A JavaScript instance's .js/.ts hunks edit their module instead (goldEditsOf's `javascript`).
import { moduleSelector } from '../../primitives/index/selector.js';

/** One edit_entity call of the gold fix (the shape of piperbench's gold_edits). */
export interface GoldEdit {
  selector: string;
  search: string;
  replace: string;
}

interface Hunk {
  file: string;
  oldStart: number;
  lines: string[];
}

function hunksOf(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let file: string | null = null;
  let current: Hunk | null = null;
  for (const line of patch.split('\n')) {
    const header = /^\+\+\+ (?:b\/)?(\S+)/.exec(line);
    if (header) {
      file = header[1] === '/dev/null' ? null : header[1]!;
      current = null;
      continue;
    }
    const at = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(line);
    if (at && file) {
      current = { file, oldStart: Number(at[1]), lines: [] };
      hunks.push(current);
      continue;
    }
    if (!current || line.startsWith('\\')) continue; // "\ No newline at end of file"
    if (/^[ +-]/.test(line) && !line.startsWith('--- ')) current.lines.push(line);
    else if (line === '')
      current.lines.push(' '); // a blank context line some tools strip
    else current = null;
  }
  return hunks;
}

/**
 * The hunk's changed region: old text, new text, the old line number it starts at, and the indent of
 * its first non-blank changed line (where the change sits: a pure insertion's anchor line may be a
 * blank line or the end of an entity the inserted code is not part of).
 */
function region(
  hunk: Hunk,
  unique: (search: string) => boolean = () => true,
): { search: string; replace: string; line: number; indent: number } | null {
  const changed = hunk.lines.map((l, i) => (l[0] === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return null;
  let first = changed[0]!;
  const last = changed.at(-1)!;
  const removes = hunk.lines.slice(first, last + 1).some((l) => l[0] === '-');
  // A pure insertion needs a line to anchor on: the nearest non-blank line before it (a blank one
  // alone is no search text).
  if (!removes)
    while (first > 0 && (first === changed[0] || hunk.lines[first]!.slice(1).trim() === '')) first--;
  let end = last;
  const side = (keep: string) =>
    hunk.lines
      .slice(first, end + 1)
      .filter((l) => l[0] === ' ' || l[0] === keep)
      .map((l) => l.slice(1));
  // Text found more than once in what the edit addresses takes the hunk's context, after, then before.
  while (!unique(side('-').join('\n')) && (end < hunk.lines.length - 1 || first > 0)) {
    if (end < hunk.lines.length - 1) end++;
    else first--;
  }
  const search = side('-').join('\n');
  // The old line the change starts at: a removed line itself; for added lines, the line before them.
  const start = changed[0]!;
  const oldBefore = hunk.lines.slice(0, start).filter((l) => l[0] !== '+').length;
  const firstChange = changed.map((i) => hunk.lines[i]!.slice(1)).find((l) => l.trim() !== '') ?? '';
  return search.trim() === ''
    ? null
    : {
        search,
        replace: side('+').join('\n'),
        line: hunk.oldStart + oldBefore - (hunk.lines[start]![0] === '-' ? 0 : 1),
        indent: indentOf(firstChange),
      };
}

function occurrences(source: string, text: string): number {
  let count = 0;
  for (let at = source.indexOf(text); at >= 0 && count < 2; at = source.indexOf(text, at + 1)) count++;
  return count;
}

function indentOf(line: string): number {
  return /^\s*/.exec(line)![0].length;
}

const HEADER = /^(\s*)(?:async\s+def|def|class)\s+(\w+)/;

/**
 * The dotted names of the defs and classes around line `line` (1-based) of `source`, for code at
 * `indent` (default: that line's own). Walking up, every non-blank line less indented than the code
 * so far closes what lies between: a nested def that ended before the line (a dedented `while`,
 * `else:` or statement follows it) does not enclose it. A line that is itself a def or class header
 * at most as indented is that entity (a changed signature).
 */
export function enclosingNames(source: string, line: number, indent?: number): string[] {
  const lines = source.split('\n');
  const target = lines[line - 1] ?? '';
  let bar = indent ?? indentOf(target);
  const names: string[] = [];
  const own = HEADER.exec(target);
  if (own && own[1]!.length <= bar) {
    names.push(own[2]!);
    bar = own[1]!.length;
  }
  for (let i = line - 2; i >= 0 && bar > 0; i--) {
    const text = lines[i]!;
    // Blank lines, comments and the closing bracket of a wrapped signature or call close nothing.
    if (/^\s*([#)\]}].*)?$/.test(text) || indentOf(text) >= bar) continue;
    const header = HEADER.exec(text);
    if (header) names.unshift(header[2]!);
    bar = indentOf(text);
  }
  return names;
}

/** The module selector of a .py path, as the code index names it (`src/a/b.py` → `src.a.b`). */
function moduleOf(file: string): string {
  return file
    .slice(0, -3)
    .replace(/\//g, '.')
    .replace(/\.__init__$/, '');
}

const SCRIPT = /\.[cm]?[jt]sx?$/;

/**
 * The gold patch's hunks as edits; `read` gives a base file's text (null when it is not there).
 * With `javascript` (an instance of a JavaScript/TypeScript repository), a hunk of a .js/.ts file
 * is an edit of its module (`src/index.ts` → `src.index`, the code index's selector), the hunk's
 * changed lines the search: the simulated model edits JavaScript as it edits a Python module's
 * top-level code. A Python instance's edits are as they were.
 */
export function goldEditsOf(
  patch: string,
  read: (file: string) => string | null,
  options: { javascript?: boolean } = {},
): GoldEdit[] {
  const edits: GoldEdit[] = [];
  for (const hunk of hunksOf(patch)) {
    if (options.javascript && SCRIPT.test(hunk.file)) {
      const source = read(hunk.file);
      const changed = source === null ? null : region(hunk, (text) => occurrences(source, text) === 1);
      if (changed)
        edits.push({ selector: moduleSelector(hunk.file), search: changed.search, replace: changed.replace });
      continue;
    }
    if (!hunk.file.endsWith('.py')) continue;
    const source = read(hunk.file);
    const changed = region(hunk);
    if (source === null || changed === null) continue;
    const names = enclosingNames(source, changed.line, changed.indent);
    if (names.length === 0) continue;
    edits.push({
      selector: `${moduleOf(hunk.file)}.${names.join('.')}`,
      search: changed.search,
      replace: changed.replace,
    });
  }
  return edits;
}
