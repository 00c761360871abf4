// noxfile.py, read as text (never run): the string-literal arguments of `session.install(...)`
// calls, as pip would read them (`-r FILE`, `-c FILE`, `-e .[extra]`, `.[extra]`, requirements;
// other options ignored). Calls are read in sessions whose name (the function's, or the
// decorator's `name=`) passes the test-name rule, and in helper functions and module-level code,
// which any session may call; a `lint` or `docs` session's installs are not read. An argument
// that is not a literal (a variable, an f-string, `*DEPS`) cannot be known without running the
// file: it is skipped, with its line.
import type { ListedRequirement } from '../deps/pyproject.js';
import { logicalLines, type LogicalLine, type Token } from '../read/python-lexer.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isTestName } from './test-names.js';
import type { SkippedRequirement } from '../types.js';

const NOXFILE = 'noxfile.py';

export interface NoxInstalls {
  /** Requirements-file lines, one per requirement or option. */
  lines: ListedRequirement[];
  sessionsRead: string[];
  sessionsNotRead: string[];
  skipped: SkippedRequirement[];
}

/** The literal arguments of each `.install(` call on the line; null for one that is not a literal. */
function installCalls(tokens: Token[]): Array<Array<string | null>> {
  const calls: Array<Array<string | null>> = [];
  tokens.forEach((token, i) => {
    if (token.text !== 'install' || tokens[i - 1]?.text !== '.' || tokens[i + 1]?.text !== '(') return;
    const args: Array<string | null> = [];
    let depth = 0;
    let argument: Token[] = [];
    for (let k = i + 1; k < tokens.length; k++) {
      const t = tokens[k] as Token;
      if (t.kind === 'op' && '([{'.includes(t.text)) depth++;
      if (t.kind === 'op' && ')]}'.includes(t.text)) depth--;
      const ends = (depth === 1 && t.text === ',') || depth === 0;
      if (ends) {
        if (argument.length) {
          const only = argument.length === 1 ? argument[0] : undefined;
          const keyword = argument[1]?.text === '=';
          if (!keyword) args.push(only?.kind === 'string' && only.value !== undefined ? only.value : null);
        }
        argument = [];
        if (depth === 0) break;
      } else if (k > i + 1) argument.push(t);
    }
    calls.push(args);
  });
  return calls;
}

function pipLines(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (['-r', '-c', '-e', '--requirement', '--constraint', '--editable'].includes(arg)) {
      if (args[i + 1] !== undefined) out.push(`${arg} ${args[++i]}`);
    } else if (/^-[rce]./.test(arg) || !arg.startsWith('-')) out.push(arg);
  }
  return out;
}

interface Block {
  name: string | null;
  session: boolean;
  lines: LogicalLine[];
}

function blocks(lines: LogicalLine[]): Block[] {
  const out: Block[] = [{ name: null, session: false, lines: [] }];
  let decorators: LogicalLine[] = [];
  for (const line of lines) {
    const words = line.tokens.map((t) => t.text);
    if (line.indent === 0 && words[0] === '@') {
      decorators.push(line);
      continue;
    }
    const def = words[0] === 'def' ? 1 : words[0] === 'async' && words[1] === 'def' ? 2 : 0;
    if (line.indent === 0 && def) {
      const decorator = decorators.map((d) => d.tokens);
      const session = decorator.some((d) => d.some((t) => t.text === 'session'));
      const named = decorator
        .flat()
        .find((t, i, all) => t.kind === 'string' && all[i - 1]?.text === '=' && all[i - 2]?.text === 'name');
      out.push({ name: named?.value ?? words[def] ?? null, session, lines: [line] });
    } else if (line.indent === 0) out.push({ name: null, session: false, lines: [line] });
    else out[out.length - 1]?.lines.push(line);
    decorators = [];
  }
  return out;
}

export function readNoxfile(reader: RepoReader): NoxInstalls | null {
  const text = reader.readText(NOXFILE, 'dependencies');
  if (text === null) return null;
  const out: NoxInstalls = { lines: [], sessionsRead: [], sessionsNotRead: [], skipped: [] };
  for (const block of blocks(logicalLines(text))) {
    if (block.session && block.name !== null) {
      if (!isTestName(block.name)) {
        out.sessionsNotRead.push(block.name);
        continue;
      }
      out.sessionsRead.push(block.name);
    }
    const where = block.session ? ` session ${block.name}` : '';
    for (const line of block.lines) {
      const from = `${NOXFILE}:${line.line}${where}`;
      for (const args of installCalls(line.tokens)) {
        const literal = args.filter((a): a is string => a !== null);
        if (literal.length < args.length)
          out.skipped.push({
            line: 'session.install(...)',
            from,
            reason: `${args.length - literal.length} argument(s) not a string literal: not read`,
          });
        for (const pip of pipLines(literal)) out.lines.push({ text: pip, from });
      }
    }
  }
  return out;
}
