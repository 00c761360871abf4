// A netrc's secrets, for the redaction of every record and output (plan/secrets.ts, the output
// guard): the file itself goes to pip in the networked box (pip-network.ts), and pip reads it with
// Python's netrc module, so its tokens are found by that module's rules.

/**
 * The passwords and accounts of a netrc, read with Python's netrc rules: tokens split on
 * whitespace, `"..."` quoting and backslash escapes; a token starting with `#` where a keyword is
 * expected comments out the rest of its line; `macdef NAME` skips its body up to a blank line.
 */
export function netrcSecrets(text: string): string[] {
  const secrets = new Set<string>();
  const lex = new NetrcLexer(text);
  for (let token = lex.next(); token !== null; token = lex.next()) {
    if (token.startsWith('#')) lex.skipLine();
    else if (token === 'machine' || token === 'login') lex.next();
    else if (token === 'macdef') {
      lex.next();
      lex.skipMacro();
    } else if (token === 'password' || token === 'account') {
      const value = lex.next();
      if (value) secrets.add(value);
    }
  }
  return [...secrets];
}

class NetrcLexer {
  private at = 0;
  constructor(private readonly text: string) {}

  next(): string | null {
    const t = this.text;
    while (this.at < t.length && ' \t\r\n'.includes(t[this.at]!)) this.at++;
    if (this.at >= t.length) return null;
    let token = '';
    const quoted = t[this.at] === '"';
    if (quoted) this.at++;
    while (this.at < t.length) {
      const c = t[this.at]!;
      if (quoted ? c === '"' : ' \t\r\n'.includes(c)) break;
      if (c === '\\' && this.at + 1 < t.length) this.at++;
      token += t[this.at];
      this.at++;
    }
    if (quoted) this.at++;
    return token;
  }

  /** The rest of the current line. */
  skipLine(): void {
    const end = this.text.indexOf('\n', this.at);
    this.at = end < 0 ? this.text.length : end + 1;
  }

  /** The rest of the macro's line, then its lines up to and including the first blank one. */
  skipMacro(): void {
    this.skipLine();
    while (this.at < this.text.length) {
      const end = this.text.indexOf('\n', this.at);
      const line = this.text.slice(this.at, end < 0 ? this.text.length : end);
      this.at = end < 0 ? this.text.length : end + 1;
      if (!line.trim()) return;
    }
  }
}
