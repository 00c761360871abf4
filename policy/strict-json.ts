// A strict JSON reader for model replies. JSON.parse lets the last of two equal keys win, so
// `{"tool":"stop","tool":"execute"}` reads as execute while a reviewer (or another parser) reads
// stop; and it accepts any nesting, which later recursive code (JSON.stringify) cannot handle. This
// reader refuses both: a duplicate key at any level and nesting deeper than MAX_JSON_DEPTH are
// errors. Otherwise it accepts exactly RFC 8259 JSON and builds the same values JSON.parse would
// (a key named __proto__ stays an own key). Recursion is bounded by the depth limit; every other
// step is a linear scan, so a hostile reply costs time in proportion to its length.

/** Objects and arrays nested deeper than this are refused (a proposal needs 3). */
export const MAX_JSON_DEPTH = 64;

export type JsonScan =
  | { ok: true; value: unknown; end: number }
  | { ok: false; kind: 'syntax' | 'duplicate_key' | 'too_deep'; reason: string };

type Failure = Extract<JsonScan, { ok: false }>;

class ScanError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.reason);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** One JSON value starting at `start` (after optional whitespace); `end` is just past it. */
export function scanJson(text: string, start = 0, maxDepth = MAX_JSON_DEPTH): JsonScan {
  const reader = new Reader(text, maxDepth);
  try {
    reader.pos = start;
    reader.skipSpace();
    const value = reader.value(0, '$');
    return { ok: true, value, end: reader.pos };
  } catch (error) {
    if (error instanceof ScanError) return error.failure;
    throw error;
  }
}

/** The whole text as exactly one JSON value, whitespace around it allowed. */
export function parseStrictJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonScan {
  const scan = scanJson(text, 0, maxDepth);
  if (!scan.ok) return scan;
  let end = scan.end;
  while (end < text.length && isSpace(text.charCodeAt(end))) end++;
  if (end < text.length) return syntax(`Unexpected non-whitespace character after JSON at position ${end}`);
  return scan;
}

/** A key as reasons show it: quoted, and cut, so a hostile key cannot make the reason huge. */
function shown(key: string): string {
  return JSON.stringify(cut(key));
}

function cut(key: string): string {
  return key.length > 40 ? `${key.slice(0, 40)}…` : key;
}

function syntax(reason: string): Failure {
  return { ok: false, kind: 'syntax', reason };
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

class Reader {
  pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  skipSpace(): void {
    while (this.pos < this.text.length && isSpace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  private fail(reason: string): never {
    throw new ScanError(syntax(reason));
  }

  private unexpected(): never {
    if (this.pos >= this.text.length) this.fail('Unexpected end of JSON input');
    this.fail(`Unexpected token ${JSON.stringify(this.text[this.pos])} at position ${this.pos}`);
  }

  value(depth: number, path: string): unknown {
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      if (depth >= this.maxDepth) {
        throw new ScanError({
          ok: false,
          kind: 'too_deep',
          reason: `nested deeper than ${this.maxDepth} levels (at ${path})`,
        });
      }
      return c === '{' ? this.object(depth + 1, path) : this.array(depth + 1, path);
    }
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return literal;
      }
    }
    return this.unexpected();
  }

  private object(depth: number, path: string): Record<string, unknown> {
    this.pos++; // {
    const result: Record<string, unknown> = {};
    const seen = new Set<string>();
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return result;
    }
    for (;;) {
      if (this.text[this.pos] !== '"') this.unexpected();
      const key = this.string();
      if (seen.has(key)) {
        throw new ScanError({
          ok: false,
          kind: 'duplicate_key',
          reason: `duplicate key ${shown(key)} in ${path}`,
        });
      }
      seen.add(key);
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.unexpected();
      this.pos++;
      this.skipSpace();
      const value = this.value(depth, `${path}.${cut(key)}`);
      // defineProperty, as JSON.parse does: "__proto__" becomes an own key, not the prototype.
      Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      this.skipSpace();
      const next = this.text[this.pos];
      if (next === '}') {
        this.pos++;
        return result;
      }
      if (next !== ',') this.unexpected();
      this.pos++;
      this.skipSpace();
    }
  }

  private array(depth: number, path: string): unknown[] {
    this.pos++; // [
    const result: unknown[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return result;
    }
    for (;;) {
      result.push(this.value(depth, `${path}[${result.length}]`));
      this.skipSpace();
      const next = this.text[this.pos];
      if (next === ']') {
        this.pos++;
        return result;
      }
      if (next !== ',') this.unexpected();
      this.pos++;
      this.skipSpace();
    }
  }

  /** A string token, checked here, decoded by JSON.parse (exact, and linear on a valid token). */
  private string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    for (;;) {
      if (this.pos >= this.text.length) this.fail('Unterminated string in JSON');
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) break;
      if (c < 0x20) this.fail(`Bad control character in string literal at position ${this.pos}`);
      if (c === 0x5c) {
        const e = this.text[this.pos + 1];
        if (e === 'u') {
          if (!HEX4.test(this.text.slice(this.pos + 2, this.pos + 6)))
            this.fail(`Bad Unicode escape at position ${this.pos}`);
          this.pos += 6;
          continue;
        }
        if (e === undefined || !SIMPLE_ESCAPES.has(e))
          this.fail(`Bad escaped character at position ${this.pos + 1}`);
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    this.pos++; // closing quote
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) this.unexpected();
    this.pos += match[0].length;
    return Number(match[0]);
  }
}
