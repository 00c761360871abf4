// A line diff (Myers' O(ND) algorithm) rendered as a standard unified diff: `--- a/path`,
// `+++ b/path`, hunks with 3 lines of context, `\ No newline at end of file` where it applies.
// `git apply` and `patch -p1` accept the output; primitives/diff/apply-patch.ts reverses it for undo.
import { splitLines } from './lines.js';

type DiffOp = { kind: ' ' | '-' | '+'; line: string };

const CONTEXT = 3;

/** The unified diff from `before` to `after` of the file at `path`; '' when they are equal. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const ops = diffLines(splitLines(before), splitLines(after));
  const hunks = renderHunks(ops);
  return hunks === '' ? '' : `--- a/${path}\n+++ b/${path}\n${hunks}`;
}

/** The shortest edit script from `a` to `b`, in order. */
function diffLines(a: string[], b: string[]): DiffOp[] {
  // Common head and tail first: an edit touches a few lines of a long file, and Myers' cost
  // grows with what lies between the first and the last difference only.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const middle = myers(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...middle,
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ];
}

function myers(a: string[], b: string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  // v[k + max] = the furthest x reached on diagonal k. trace[d] is v before step d, kept only
  // for the diagonals step d can read (-d..d), so memory is O(D²), not O(D·(N+M)).
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(max - d, max + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[max + k - 1]! < v[max + k + 1]!) ? v[max + k + 1]! : v[max + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d);
    }
  }
  throw new Error('unreachable: Myers always ends by d = n + m');
}

function backtrack(a: string[], b: string[], trace: Int32Array[], depth: number): DiffOp[] {
  const ops: DiffOp[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = depth; d > 0; d--) {
    const saved = trace[d]!;
    const at = (k: number) => saved[k + d]!; // saved covers diagonals -d..d+1
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      y--;
      ops.push({ kind: ' ', line: a[--x]! });
    }
    if (down) ops.push({ kind: '+', line: b[--y]! });
    else ops.push({ kind: '-', line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    y--;
    ops.push({ kind: ' ', line: a[--x]! });
  }
  return ops.reverse();
}

function renderHunks(ops: DiffOp[]): string {
  const changes = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  if (changes.length === 0) return '';
  // 1-based line numbers in a and b at which each op starts.
  const aLine: number[] = [];
  const bLine: number[] = [];
  let aNext = 1;
  let bNext = 1;
  for (const op of ops) {
    aLine.push(aNext);
    bLine.push(bNext);
    if (op.kind !== '+') aNext++;
    if (op.kind !== '-') bNext++;
  }
  let out = '';
  let g = 0;
  while (g < changes.length) {
    // Changes closer than 2 × context share one hunk, as GNU diff and git do.
    let last = g;
    while (last + 1 < changes.length && changes[last + 1]! - changes[last]! - 1 <= 2 * CONTEXT) last++;
    const from = Math.max(0, changes[g]! - CONTEXT);
    const to = Math.min(ops.length, changes[last]! + 1 + CONTEXT);
    const slice = ops.slice(from, to);
    const aCount = slice.filter((op) => op.kind !== '+').length;
    const bCount = slice.filter((op) => op.kind !== '-').length;
    out += `@@ -${range(aLine[from]!, aCount)} +${range(bLine[from]!, bCount)} @@\n`;
    for (const op of slice) {
      out += op.line.endsWith('\n')
        ? `${op.kind}${op.line}`
        : `${op.kind}${op.line}\n\\ No newline at end of file\n`;
    }
    g = last + 1;
  }
  return out;
}

/** `start,count` as in GNU diff: `,1` left out; an empty range names the line before it. */
function range(start: number, count: number): string {
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}
