// The modules a Python file imports, read from its tokens (python-lexer.ts), never by running it:
// `import a.b as c, d`, `from a.b import x` (relative imports are the file's own package), at any
// depth (an import inside a function or an `if` counts: the tests run it when they call it), and
// `pytest.importorskip("a")` (or a suite's own `_importorskip("a")`). An import is *optional* when
// a missing module cannot fail the tests: inside `try:` whose handlers catch ImportError (or
// ModuleNotFoundError, Exception, a bare except), inside such a handler (a fallback), under
// `if TYPE_CHECKING:`, or via importorskip.
import { logicalLines, type LogicalLine, type Token } from '../read/python-lexer.js';

export interface FoundImport {
  /** The top-level module (`a` of `a.b.c`). */
  module: string;
  /** The first two parts (`a.b`), for namespace packages; equal to `module` for one part. */
  dotted: string;
  line: number;
  optional: boolean;
}

const COMPOUND = new Set([
  'if',
  'elif',
  'else',
  'try',
  'except',
  'finally',
  'for',
  'while',
  'with',
  'def',
  'class',
  'async',
]);
const CATCHES_IMPORT = new Set(['ImportError', 'ModuleNotFoundError', 'Exception', 'BaseException']);

/** The statements of a logical line: split at `;` and after a compound header's `:`. */
function statements(line: LogicalLine): Token[][] {
  const out: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  const compound = COMPOUND.has(line.tokens[0]?.text ?? '');
  let headerDone = !compound;
  for (const token of line.tokens) {
    if (token.kind === 'op' && '([{'.includes(token.text)) depth++;
    if (token.kind === 'op' && ')]}'.includes(token.text)) depth = Math.max(0, depth - 1);
    const split =
      depth === 0 && token.kind === 'op' && (token.text === ';' || (!headerDone && token.text === ':'));
    if (split) {
      if (token.text === ':') headerDone = true;
      out.push(current);
      current = [];
    } else current.push(token);
  }
  out.push(current);
  return out.filter((statement) => statement.length > 0);
}

/** Dotted names of one import statement's modules, or [] when it is not one. */
function importedModules(tokens: Token[]): string[][] {
  const first = tokens[0]?.text;
  const dotted = (from: number): { parts: string[]; next: number } => {
    const parts: string[] = [];
    let i = from;
    while (tokens[i]?.kind === 'name') {
      parts.push(tokens[i]?.text as string);
      if (tokens[i + 1]?.text !== '.') return { parts, next: i + 1 };
      i += 2;
    }
    return { parts, next: i };
  };
  if (first === 'from') {
    if (tokens[1]?.text === '.') return []; // relative: the file's own package
    const { parts, next } = dotted(1);
    if (tokens[next]?.text !== 'import' || parts.length === 0) return [];
    const name = tokens[next + 1];
    if (parts.length === 1 && name?.kind === 'name') return [[...parts, name.text]];
    return [parts];
  }
  if (first !== 'import') return [];
  const out: string[][] = [];
  let i = 1;
  for (;;) {
    const { parts, next } = dotted(i);
    if (parts.length === 0) return out;
    out.push(parts);
    i = next;
    if (tokens[i]?.text === 'as') i += 2;
    if (tokens[i]?.text !== ',') return out;
    i++;
  }
}

function catchesImportError(header: LogicalLine): boolean {
  const names = header.tokens.slice(1).map((t) => t.text);
  return names[0] === ':' || names.some((name) => CATCHES_IMPORT.has(name));
}

/** For each line, whether a failing import on it is caught or never runs. */
function optionalLines(lines: LogicalLine[]): boolean[] {
  const guarded = lines.map((line, index) => {
    const head = line.tokens[0]?.text;
    const text = line.tokens.map((t) => t.text).join(' ');
    if (head === 'except') return catchesImportError(line);
    if (head === 'if' && /\bTYPE_CHECKING\b/.test(text)) return true;
    if (head !== 'try') return false;
    // A try guards its body when one of its handlers (siblings after the body) catches ImportError.
    for (let k = index + 1; k < lines.length; k++) {
      const sibling = lines[k] as LogicalLine;
      if (sibling.indent > line.indent) continue;
      if (sibling.indent < line.indent || sibling.tokens[0]?.text !== 'except') {
        if (sibling.indent === line.indent && ['else', 'finally'].includes(sibling.tokens[0]?.text ?? ''))
          continue;
        return false;
      }
      if (catchesImportError(sibling)) return true;
    }
    return false;
  });
  // A line is optional when it or any enclosing block is guarded.
  const out: boolean[] = [];
  const stack: Array<{ indent: number; optional: boolean }> = [];
  lines.forEach((line, index) => {
    while (stack.length && (stack[stack.length - 1]?.indent ?? 0) >= line.indent) stack.pop();
    const enclosing = stack[stack.length - 1]?.optional ?? false;
    out.push(enclosing);
    stack.push({ indent: line.indent, optional: enclosing || (guarded[index] ?? false) });
  });
  // A one-line `try: import x` (header and body on one line) guards its own line.
  return out.map((optional, index) => optional || (guarded[index] ?? false));
}

/**
 * `pytest.importorskip("a")`, and a suite's own helper of that name (`_importorskip("a")`, which
 * xarray's tests use as `has_a, requires_a = _importorskip("a")`): a call whose first argument is
 * the module's name as a string. What such a call installs and then fails at import is hidden by
 * the build's import check (build/import-check.ts).
 */
const IMPORTORSKIP = /^_*importorskip$/i;

function importorskips(tokens: Token[]): string[] {
  const out: string[] = [];
  tokens.forEach((token, i) => {
    const argument = tokens[i + 2];
    if (
      IMPORTORSKIP.test(token.text) &&
      tokens[i + 1]?.text === '(' &&
      argument?.kind === 'string' &&
      argument.value
    )
      out.push(argument.value);
  });
  return out;
}

export function importsOf(source: string): FoundImport[] {
  const lines = logicalLines(source);
  const optional = optionalLines(lines);
  const found: FoundImport[] = [];
  const add = (parts: string[], line: number, isOptional: boolean): void => {
    const [module] = parts;
    if (!module || !/^[\p{L}_][\p{L}\p{N}_]*$/u.test(module)) return;
    found.push({ module, dotted: parts.slice(0, 2).join('.'), line, optional: isOptional });
  };
  lines.forEach((line, index) => {
    for (const statement of statements(line)) {
      for (const parts of importedModules(statement)) add(parts, line.line, optional[index] ?? false);
    }
    for (const name of importorskips(line.tokens)) add(name.split('.'), line.line, true);
  });
  return found;
}
