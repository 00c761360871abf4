// The symbol-token trigger's matcher (docs/policy.md, "Triggers"), as a single left-to-right scan.
// The policy states it as a regex, `[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+`, but a
// backtracking engine runs that regex in quadratic time on a long identifier with no dot: every
// start position inside it scans to its end and fails (a 10 MB issue stalled for minutes). The scan
// finds the same matches in linear time: a match can only start at the first non-digit of a run of
// word characters, and it exists iff that run is followed by `.` and an identifier start. Tokens
// longer than MAX_SYMBOL_TOKEN are skipped: no selector is that long, and they are not searched
// for.

/** The longest symbol token the trigger searches for; longer matches are skipped, not cut. */
export const MAX_SYMBOL_TOKEN = 256;

export interface SymbolMatch {
  index: number;
  token: string;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isWord = (c: number) => isIdentStart(c) || isDigit(c);
const DOT = 46;

/** End of the run of word characters starting at `i` (ASCII, as the spec's regex). */
function runEnd(text: string, i: number): number {
  while (i < text.length && isWord(text.charCodeAt(i))) i++;
  return i;
}

/** The dotted identifiers of `text`, exactly as the spec's regex with the g flag finds them. */
export function dottedSymbols(text: string): SymbolMatch[] {
  return [...scanDotted(text)];
}

/** Bare CamelCase words, as the spec's `\b[A-Z][a-zA-Z0-9_]+\b` finds them (SYMBOL_CAMEL=1). */
export function camelWords(text: string): SymbolMatch[] {
  return [...scanCamel(text)];
}

/**
 * Symbol tokens in order of appearance, dotted before CamelCase when both start at one index,
 * produced lazily: the trigger stops after its first three new tokens.
 */
export function* scanSymbols(text: string, camel: boolean): Generator<SymbolMatch> {
  const dotted = scanDotted(text);
  const words = camel ? scanCamel(text) : null;
  let d = dotted.next();
  let w = words?.next();
  while (!d.done || (w && !w.done)) {
    if (!d.done && (!w || w.done || d.value.index <= w.value.index)) {
      yield d.value;
      d = dotted.next();
    } else if (w && !w.done) {
      yield w.value;
      w = words!.next();
    }
  }
}

function* scanDotted(text: string): Generator<SymbolMatch> {
  let i = 0;
  while (i < text.length) {
    if (!isWord(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const end = runEnd(text, i);
    let start = i;
    while (start < end && isDigit(text.charCodeAt(start))) start++;
    let last = end;
    // Each `.` + identifier start extends the match by one more segment, greedily.
    while (
      start < end &&
      last + 1 < text.length &&
      text.charCodeAt(last) === DOT &&
      isIdentStart(text.charCodeAt(last + 1))
    )
      last = runEnd(text, last + 1);
    if (last > end) {
      if (last - start <= MAX_SYMBOL_TOKEN) yield { index: start, token: text.slice(start, last) };
      i = last;
    } else i = end;
  }
}

function* scanCamel(text: string): Generator<SymbolMatch> {
  let i = 0;
  while (i < text.length) {
    if (!isWord(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const end = runEnd(text, i);
    const first = text.charCodeAt(i);
    if (first >= 65 && first <= 90 && end - i >= 2 && end - i <= MAX_SYMBOL_TOKEN)
      yield { index: i, token: text.slice(i, end) };
    i = end;
  }
}
