// Words for lexical search. Identifiers are split on snake_case and camelCase (`parseHTTPHeader` →
// parse, http, header) and kept whole too, so both `remember_fact` and "remember fact" find them.
// Lower-cased, with a light plural strip and a few words that carry no meaning dropped.

const STOP = new Set(
  (
    'a an and are as at be by for from if in into is it its of on or that the this to was with ' +
    // Python words every entity has
    'self cls def class return none true false pass async await'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}_]+/gu;
// Boundaries inside an identifier: aB, ABc (acronym then word), letter/digit changes.
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

/** The parts of one identifier, lower-cased; the whole identifier first when it has several. */
export function identifierParts(identifier: string): string[] {
  const parts: string[] = [];
  for (const piece of identifier.split('_')) {
    if (piece) for (const p of piece.split(CAMEL)) if (p) parts.push(p.toLowerCase());
  }
  const whole = identifier.replace(/^_+|_+$/g, '').toLowerCase();
  return parts.length > 1 && whole ? [whole, ...parts] : parts;
}

/** Search terms of free text or code, in order, repeats kept (term frequency matters). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    for (const part of identifierParts(match[0])) {
      if (part.length < 2 && !/\p{N}/u.test(part)) continue;
      if (STOP.has(part)) continue;
      out.push(stem(part));
    }
  }
  return out;
}

/** `numbers` → `number`, `classes` → `class`; leaves `address`, `status`, short words alone. */
function stem(word: string): string {
  if (word.length <= 3 || !word.endsWith('s') || /(ss|us|is)$/.test(word)) return word;
  if (word.endsWith('sses') || word.endsWith('xes') || word.endsWith('ches') || word.endsWith('shes')) {
    return word.slice(0, -2);
  }
  return word.slice(0, -1);
}
