// Applies a unified diff of one file (as primitives/diff/unified-diff.ts writes it), forward or in
// reverse. Every context and removed line must match exactly, or nothing is applied: undo restores
// byte-for-byte or refuses, it never guesses (no fuzz, no offsets).
import { splitLines } from './lines.js';
import { appendAll } from '../../runtime/text/append.js';

export type PatchResult = { ok: true; text: string } | { ok: false; reason: string };

interface Hunk {
  oldStart: number;
  newStart: number;
  oldLines: string[];
  newLines: string[];
}

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function applyPatch(text: string, diff: string, options: { reverse?: boolean } = {}): PatchResult {
  const parsed = parseHunks(diff);
  if (!parsed.ok) return parsed;
  const lines = splitLines(text);
  const out: string[] = [];
  let cursor = 0;
  for (const hunk of parsed.hunks) {
    const [from, to, start] = options.reverse
      ? [hunk.newLines, hunk.oldLines, hunk.newStart]
      : [hunk.oldLines, hunk.newLines, hunk.oldStart];
    // An empty side names the line before it (GNU convention), so it begins at index `start`.
    const at = from.length === 0 ? start : start - 1;
    if (at < cursor) return { ok: false, reason: `hunks overlap or are out of order at line ${start}` };
    for (let i = 0; i < from.length; i++) {
      if (lines[at + i] !== from[i]) {
        return { ok: false, reason: `line ${at + i + 1} does not match the diff` };
      }
    }
    appendAll(out, lines.slice(cursor, at));
    appendAll(out, to);
    cursor = at + from.length;
  }
  appendAll(out, lines.slice(cursor));
  return { ok: true, text: out.join('') };
}

function parseHunks(diff: string): { ok: true; hunks: Hunk[] } | { ok: false; reason: string } {
  const rows = diff.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  const hunks: Hunk[] = [];
  let i = rows.findIndex((row) => row.startsWith('@@'));
  if (i < 0) return { ok: false, reason: 'the diff has no hunk' };
  while (i < rows.length) {
    const match = HEADER.exec(rows[i]!);
    if (!match) return { ok: false, reason: `malformed hunk header: ${rows[i]}` };
    const oldCount = match[2] === undefined ? 1 : Number(match[2]);
    const newCount = match[4] === undefined ? 1 : Number(match[4]);
    const hunk: Hunk = { oldStart: Number(match[1]), newStart: Number(match[3]), oldLines: [], newLines: [] };
    i++;
    while (i < rows.length && !rows[i]!.startsWith('@@')) {
      const row = rows[i]!;
      const body = `${row.slice(1)}\n`;
      if (row.startsWith('\\')) {
        // "\ No newline at end of file": the line just before it ends without '\n'.
        const previous = rows[i - 1]![0];
        if (previous !== '+') chopNewline(hunk.oldLines);
        if (previous !== '-') chopNewline(hunk.newLines);
      } else if (row[0] === ' ') {
        hunk.oldLines.push(body);
        hunk.newLines.push(body);
      } else if (row[0] === '-') hunk.oldLines.push(body);
      else if (row[0] === '+') hunk.newLines.push(body);
      else return { ok: false, reason: `malformed diff line: ${row}` };
      i++;
    }
    if (hunk.oldLines.length !== oldCount || hunk.newLines.length !== newCount) {
      return {
        ok: false,
        reason: `hunk at -${hunk.oldStart} +${hunk.newStart} has the wrong number of lines`,
      };
    }
    hunks.push(hunk);
  }
  return { ok: true, hunks };
}

function chopNewline(lines: string[]): void {
  const last = lines.length - 1;
  if (last >= 0) lines[last] = lines[last]!.slice(0, -1);
}
