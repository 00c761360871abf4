// A small Python tokenizer, enough to read imports and literal call arguments from a repository's
// .py files without running them (the files are untrusted; nothing here executes anything). It
// knows what changes the meaning of the text around it: comments, string literals of every kind
// (prefixes, triple quotes, escapes), line continuations and implicit joining inside brackets, and
// the indentation of each logical line. It does not know the grammar: readers of its tokens do.

export interface Token {
  kind: 'name' | 'op' | 'string' | 'number';
  text: string;
  /** A string literal's content (escapes left as written); absent for an f-string. */
  value?: string;
}

export interface LogicalLine {
  /** Columns of indentation (a tab counts to the next multiple of 8, as CPython does). */
  indent: number;
  /** 1-based line number where it starts. */
  line: number;
  tokens: Token[];
}

const STRING_START = /(?:[rR][bBfF]?|[bBfF][rR]?|[uU])?('''|"""|'|")/y;
const NAME = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{N}\p{Mn}\p{Mc}\p{Pc}]*/uy;
const NUMBER = /(?:\d|\.\d)[0-9a-zA-Z_.]*/y;

class Lexer {
  pos = 0;
  line = 1;
  depth = 0;
  readonly lines: LogicalLine[] = [];
  private current: LogicalLine | null = null;

  constructor(private readonly src: string) {}

  private at(pattern: RegExp): string | null {
    pattern.lastIndex = this.pos;
    const found = pattern.exec(this.src);
    return found ? found[0] : null;
  }

  private push(token: Token): void {
    this.current ??= { indent: 0, line: this.line, tokens: [] };
    this.current.tokens.push(token);
  }

  private endLine(): void {
    if (this.current?.tokens.length) this.lines.push(this.current);
    this.current = null;
  }

  /** At the start of a physical line outside brackets: measure the indent, skip blank lines. */
  private lineStart(): void {
    let indent = 0;
    while (this.pos < this.src.length) {
      const c = this.src[this.pos];
      if (c === ' ') indent++;
      else if (c === '\t') indent = indent - (indent % 8) + 8;
      else if (c !== '\f') break;
      this.pos++;
    }
    const c = this.src[this.pos];
    if (c === '\n' || c === '\r' || c === '#' || c === undefined) return;
    this.current = { indent, line: this.line, tokens: [] };
  }

  private string(quote: string, prefix: string): void {
    const start = this.pos;
    this.pos += prefix.length + quote.length;
    const triple = quote.length === 3;
    while (this.pos < this.src.length) {
      const c = this.src[this.pos] as string;
      if (c === '\\') {
        if (this.src[this.pos + 1] === '\n') this.line++;
        this.pos += 2;
        continue;
      }
      if (c === '\n') {
        if (!triple) break; // unterminated: the string ends with its line, as a SyntaxError would
        this.line++;
      }
      if (this.src.startsWith(quote, this.pos)) {
        this.pos += quote.length;
        break;
      }
      this.pos++;
    }
    const text = this.src.slice(start, this.pos);
    const body = text.slice(prefix.length + quote.length, text.endsWith(quote) ? -quote.length : undefined);
    this.push({ kind: 'string', text, ...(/[fF]/.test(prefix) ? {} : { value: body }) });
  }

  run(): LogicalLine[] {
    this.lineStart();
    while (this.pos < this.src.length) {
      const c = this.src[this.pos] as string;
      if (c === ' ' || c === '\t' || c === '\f' || c === '\r') this.pos++;
      else if (c === '#') while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      else if (c === '\\' && /^\\\r?\n/.test(this.src.slice(this.pos, this.pos + 3))) {
        this.pos += this.src[this.pos + 1] === '\r' ? 3 : 2;
        this.line++;
      } else if (c === '\n') {
        this.pos++;
        this.line++;
        if (this.depth === 0) {
          this.endLine();
          this.lineStart();
        }
      } else this.token(c);
    }
    this.endLine();
    return this.lines;
  }

  private token(c: string): void {
    const string = this.at(STRING_START);
    if (string) {
      const quote = /('''|"""|'|")$/.exec(string)?.[1] as string;
      this.string(quote, string.slice(0, string.length - quote.length));
      return;
    }
    const name = this.at(NAME);
    if (name) {
      this.pos += name.length;
      this.push({ kind: 'name', text: name });
      return;
    }
    const number = this.at(NUMBER);
    if (number) {
      this.pos += number.length;
      this.push({ kind: 'number', text: number });
      return;
    }
    if ('([{'.includes(c)) this.depth++;
    else if (')]}'.includes(c)) this.depth = Math.max(0, this.depth - 1);
    const op = this.src.startsWith(':=', this.pos) ? ':=' : c;
    this.pos += op.length;
    this.push({ kind: 'op', text: op });
  }
}

export function logicalLines(source: string): LogicalLine[] {
  return new Lexer(source).run();
}
