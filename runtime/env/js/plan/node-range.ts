// Whether a Node.js major can satisfy a semver range as package.json's `engines.node` writes it
// (`>=18`, `^20.11 || >=22`, `18.x - 22`, `>=16 <23`): a small reader, bounded in length and parts,
// that turns each comparator into an interval of versions and asks whether any version of the major
// lies in every interval of some `||` alternative. A part it cannot read makes the range unreadable
// (null), never silently true.

type Version = [number, number, number];
interface Interval {
  lo: Version;
  hi: Version | null;
}

const MAX_RANGE = 256;
const MAX_PARTS = 32;
const PART = /^(>=|<=|>|<|=|\^|~)?\s*v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][\w.-]*)?$/;

function cmp(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The interval one comparator allows; null when unreadable. */
function comparator(text: string): Interval | null {
  if (text === '*' || text === 'x' || text === '') return { lo: [0, 0, 0], hi: null };
  const m = PART.exec(text);
  if (!m) return null;
  const op = m[1] ?? '';
  const wild = (s: string | undefined) => s === undefined || /^[xX*]$/.test(s);
  const major = wild(m[2]) ? null : Number(m[2]);
  if (major === null) return { lo: [0, 0, 0], hi: null };
  const minor = wild(m[3]) ? null : Number(m[3]);
  const patch = wild(m[4]) ? null : Number(m[4]);
  const v: Version = [major, minor ?? 0, patch ?? 0];
  // The first version past what a partial version names (`20` → 21.0.0, `20.1` → 20.2.0).
  const next: Version =
    minor === null ? [major + 1, 0, 0] : patch === null ? [major, minor + 1, 0] : [major, minor, patch + 1];
  switch (op) {
    case '>=':
      return { lo: v, hi: null };
    case '>':
      return { lo: next, hi: null };
    case '<':
      return { lo: [0, 0, 0], hi: v };
    case '<=':
      return { lo: [0, 0, 0], hi: next };
    case '^':
      return { lo: v, hi: major > 0 || minor === null ? [major + 1, 0, 0] : [0, minor + 1, 0] };
    case '~':
      return { lo: v, hi: minor === null ? [major + 1, 0, 0] : [major, minor + 1, 0] };
    default:
      return { lo: v, hi: next };
  }
}

/** One `||` alternative as intervals: `a - b` hyphen ranges and space-separated comparators. */
function alternative(text: string): Interval[] | null {
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
  if (hyphen) {
    const lo = comparator(`>=${hyphen[1]}`);
    const hi = comparator(`<=${hyphen[2]}`);
    return lo && hi ? [lo, hi] : null;
  }
  const parts = text
    .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
    .split(/\s+/)
    .filter(Boolean);
  const out = parts.map(comparator);
  return out.every((i) => i !== null) ? (out as Interval[]) : null;
}

/** Whether some version of `major` satisfies `range`; null when the range cannot be read. */
export function majorSatisfies(range: string, major: number): boolean | null {
  const text = range.trim();
  if (text.length > MAX_RANGE) return null;
  const alternatives = text.split('||').map((a) => a.trim());
  if (alternatives.length > MAX_PARTS) return null;
  let readable = true;
  for (const alt of alternatives) {
    const intervals = alternative(alt);
    if (!intervals || intervals.length > MAX_PARTS) {
      readable = false;
      continue;
    }
    let lo: Version = [major, 0, 0];
    let hi: Version = [major + 1, 0, 0];
    for (const i of intervals) {
      if (cmp(i.lo, lo) > 0) lo = i.lo;
      if (i.hi && cmp(i.hi, hi) < 0) hi = i.hi;
    }
    if (cmp(lo, hi) < 0) return true;
  }
  return readable ? false : null;
}
