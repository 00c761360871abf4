// "Did you mean …": the one known word closest to a mistyped one (a command, a flag, a config key).
// Close means an edit distance of at most 2 — insertions, deletions, substitutions and swaps of
// two neighbours (optimal string alignment), the typos people make — or a unique prefix (`--rep`).

/** The candidate the word most likely meant, or undefined when none is close. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  if (word === '') return undefined;
  const lower = word.toLowerCase();
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(lower));
  if (prefixed.length === 1) return prefixed[0];
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    // A short word is close to everything short: within 2 edits, but never all of it rewritten.
    if (distance > 2 || distance >= Math.max(lower.length, candidate.length)) continue;
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Optimal string alignment distance: Levenshtein plus the swap of two adjacent characters. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}

/** `; did you mean fix?`, to end a message with; '' when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : `; did you mean ${match}?`;
}
