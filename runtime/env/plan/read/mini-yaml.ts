// The YAML a CI workflow is written in, as far as the test command needs it: block mappings and
// sequences by indentation, plain and quoted scalars, `|` and `>` block scalars, comments. Flow
// collections (`[push, pull_request]`) and anything else stay their raw text: no anchors, tags or
// merges are resolved, and nothing is ever evaluated. A file it cannot read gives null.
export type YamlValue = string | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  indent: number;
  text: string;
  /** The line as written, for block scalars (comments and spacing kept). */
  raw: string;
}

export function readYaml(source: string): YamlValue | null {
  const lines: Line[] = [];
  for (const raw of source.replace(/\r\n?/g, '\n').split('\n')) {
    const text = stripComment(raw).trimEnd();
    lines.push({ indent: raw.length - raw.trimStart().length, text: text.trim(), raw });
  }
  const state = { lines, at: 0 };
  try {
    skipBlank(state);
    if (state.at >= lines.length) return null;
    return block(state, lines[state.at]!.indent);
  } catch {
    return null;
  }
}

type State = { lines: Line[]; at: number };

function skipBlank(s: State): void {
  while (s.at < s.lines.length && (s.lines[s.at]!.text === '' || s.lines[s.at]!.text === '---')) s.at++;
}

function block(s: State, indent: number): YamlValue {
  skipBlank(s);
  const first = s.lines[s.at];
  if (!first || first.indent < indent) return '';
  return first.text.startsWith('- ') || first.text === '-'
    ? sequence(s, first.indent)
    : mapping(s, first.indent);
}

function sequence(s: State, indent: number): YamlValue[] {
  const items: YamlValue[] = [];
  for (skipBlank(s); s.at < s.lines.length; skipBlank(s)) {
    const line = s.lines[s.at]!;
    if (line.indent !== indent || !(line.text.startsWith('- ') || line.text === '-')) break;
    const rest = line.text.slice(1).trimStart();
    if (rest === '') {
      s.at++;
      items.push(block(s, indent + 1));
    } else if (keyOf(rest) !== null) {
      // `- key: value` opens a mapping whose keys sit where `key` does.
      const offset = line.text.length - rest.length;
      s.lines[s.at] = { indent: indent + offset, text: rest, raw: line.raw };
      items.push(mapping(s, indent + offset));
    } else {
      s.at++;
      items.push(scalar(rest));
    }
  }
  return items;
}

function mapping(s: State, indent: number): { [key: string]: YamlValue } {
  const map: { [key: string]: YamlValue } = {};
  for (skipBlank(s); s.at < s.lines.length; skipBlank(s)) {
    const line = s.lines[s.at]!;
    if (line.indent !== indent) {
      if (line.indent > indent) throw new Error(`unexpected indentation at line ${s.at + 1}`);
      break;
    }
    const key = keyOf(line.text);
    if (key === null) throw new Error(`expected "key: value" at line ${s.at + 1}`);
    const value = line.text.slice(key.end).trim();
    s.at++;
    if (/^[|>][+-]?\d*$/.test(value)) map[key.name] = blockScalar(s, indent, value);
    else if (value === '') {
      skipBlank(s);
      const next = s.lines[s.at];
      // A sequence may sit at the key's own indentation (`steps:\n- run: x`).
      const nested = next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- ')));
      map[key.name] = nested ? block(s, next.indent) : '';
    } else map[key.name] = scalar(value);
  }
  return map;
}

function blockScalar(s: State, indent: number, header: string): string {
  const out: string[] = [];
  let inner = -1;
  while (s.at < s.lines.length) {
    const line = s.lines[s.at]!;
    const blank = line.raw.trim() === '';
    if (!blank && line.indent <= indent) break;
    if (!blank && inner < 0) inner = line.indent;
    out.push(blank ? '' : line.raw.slice(inner));
    s.at++;
  }
  while (out.length && out.at(-1) === '') out.pop();
  const text = header.startsWith('>') ? out.join(' ').replace(/ {2,}/g, ' ') : out.join('\n');
  return header.includes('-') ? text : `${text}\n`;
}

function keyOf(line: string): { name: string; end: number } | null {
  // A key is short; looking no further keeps the patterns linear on a hostile file's long lines.
  const text = line.slice(0, 1024);
  const quoted = /^(["'])(.*?)\1\s*:(\s|$)/.exec(text);
  if (quoted) return { name: quoted[2]!, end: quoted[0].length };
  const plain = /^([^\s"'#\-[{][^:]*?|-[^\s:][^:]*?)\s*:(\s|$)/.exec(text);
  return plain ? { name: plain[1]!, end: plain[0].length } : null;
}

function scalar(text: string): string {
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2)
    return text
      .slice(1, -1)
      .replace(/\\(["\\nt0])/g, (_, c: string) => ({ n: '\n', t: '\t', '0': '\0' })[c] ?? c);
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2)
    return text.slice(1, -1).replace(/''/g, "'");
  return text;
}

/** The line without a comment: `#` at its start or after a space, outside quotes. */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:[{,-]/.test(line[i - 1]!)) quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}
