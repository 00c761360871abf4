// Which command line runs a project's tests, and the translation of the runners the sandbox does
// not run into the command they would run: `tox -e py` → tox.ini [testenv] `commands`, `nox -s
// tests` → the session's `session.run(...)`, `make test` → the target's recipe (its prerequisites
// would install or build, with no network). Every file is read as text; none is executed.
import { iniLines, parseIni } from '../read/ini.js';
import type { RepoReader } from '../read/repo-reader.js';
import { runnersOf, simpleCommands } from './test-shell.js';

/**
 * A project tool's `run` in front of the command (`uv run --group dev --python 3.12 pytest`), with
 * its own options: those named here take a value, any other option is a flag. The sandbox's
 * environment is the project's, so the wrapper and its options are dropped. A value never starts
 * with `-`, so each word reads one way only: a CI file's `--group --group …` cannot make the match
 * backtrack exponentially (the line is the repository's).
 */
const WRAPPER_SOURCE =
  '(?:uv|poetry|pdm|pipenv|hatch)\\s+run(?:\\s+(?:--(?:group|only-group|extra|python|with|with-requirements|with-editable|package|env-file|directory|project|index|env)(?:=|\\s+)[^\\s-]\\S*|-[pe]\\s+[^\\s-]\\S*|--?\\w[\\w-]*))*\\s+';
const WRAPPER = new RegExp(`^${WRAPPER_SOURCE}`);
/** A command line that runs a test suite, as a CI step or a tox/nox/make recipe writes it. */
const RUNNER = new RegExp(
  `^(?:${WRAPPER_SOURCE})?(?:python3?\\s+-m\\s+(?:pytest|unittest|tox|nox)|pytest|py\\.test|tox|nox|make\\s+(?:test|tests|check))(?:\\s|$)`,
);

export interface Translated {
  command: string;
  /** What was translated, said in the decision; '' when the line runs as written. */
  note: string;
  env: Array<[string, string]>;
  /** Where the variables were read (tox's setenv), for the decisions about them. */
  envFrom?: string;
}

/**
 * Whether `line` (one shell line) runs a test suite: as written, or in one of its simple commands
 * once what only prepares the start is set aside (`VAR=x pytest`, `cd tests && pytest`, `time
 * pytest`), or under coverage (`coverage run -m pytest`).
 */
export function runsTests(line: string): boolean {
  if (RUNNER.test(line.trim())) return true;
  // Behind a prefix only pytest and unittest count: `cd docs && make check` is a doc build, and
  // tox, nox and make are translated from the start of a line only.
  return simpleCommands(line).some((words) =>
    runnersOf(words).some((r) => r.kind === 'pytest' || r.kind === 'unittest'),
  );
}

/** The line as the sandbox runs it, or a reason it cannot be (returned as a string). */
export function translate(line: string, reader: RepoReader): Translated | string {
  let command = line.trim();
  const wrapper = WRAPPER.exec(command);
  const notes: string[] = [];
  if (wrapper) {
    command = command.slice(wrapper[0].length);
    notes.push(`\`${wrapper[0].trim()}\` dropped: the environment is the project's`);
  }
  // `python -m tox` is tox run by the interpreter that has it.
  command = command.replace(/^python3?\s+-m\s+(tox|nox)(?=\s|$)/, '$1');
  if (/^tox(\s|$)/.test(command)) return fromTox(reader, notes);
  if (/^nox(\s|$)/.test(command)) return fromNox(command, reader, notes);
  const make = /^make\s+(test|tests|check)$/.exec(command);
  if (make) return fromMake(make[1]!, reader, notes);
  return { command, note: notes.join('; '), env: [] };
}

/** tox.ini [testenv]: the first `commands` line that runs tests, `{posargs}` removed; its setenv. */
export function fromTox(reader: RepoReader, notes: string[] = []): Translated | string {
  const text = reader.readText('tox.ini', 'dependencies');
  if (text === null) return 'tox: no tox.ini';
  let testenv: Map<string, string> | undefined;
  try {
    testenv = parseIni(text, 'tox.ini').get('testenv');
  } catch {
    return 'tox.ini is not valid INI';
  }
  const lines = joinContinued(iniLines(testenv?.get('commands'))).map(toxLine);
  const line = lines.find((l) => l !== null && runsTests(l));
  if (!line) return 'tox.ini [testenv] commands: no line runs tests without a tox substitution';
  const env: Array<[string, string]> = [];
  for (const entry of iniLines(testenv?.get('setenv'))) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.push([entry.slice(0, eq).trim(), entry.slice(eq + 1).trim()]);
  }
  notes.push(`tox translated to tox.ini [testenv] commands \`${line}\``);
  return { command: line, note: notes.join('; '), env, envFrom: 'tox.ini [testenv] setenv' };
}

/** tox's command lines with each one ending in `\` joined to the next, as tox reads them. */
function joinContinued(lines: string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const line of lines) {
    if (line.endsWith('\\')) pending += `${line.slice(0, -1)} `;
    else {
      out.push(pending + line);
      pending = '';
    }
  }
  if (pending) out.push(pending.trim());
  return out;
}

/** A tox command line with `{posargs}` removed (`{posargs:x}` → x), the paths tox names put where they are in the sandbox; null with another substitution. */
function toxLine(line: string): string | null {
  const out = line
    .replace(/^-\s*/, '')
    .replace(/\{posargs(?::([^{}]*))?\}/g, (_, fallback?: string) => fallback ?? '')
    .replace(/\{envpython\}/g, 'python')
    .replace(/\{toxinidir\}/g, '.')
    // tox's per-environment scratch directory (`--basetemp={envtmpdir}`): the sandbox's is /tmp.
    .replace(/\{envtmpdir\}/g, '/tmp/tox-envtmpdir')
    .replace(/\s+/g, ' ')
    .trim();
  return out.includes('{') ? null : out;
}

/** noxfile.py: the named session (or test/tests), its `session.run(...)` of literal words. */
function fromNox(command: string, reader: RepoReader, notes: string[]): Translated | string {
  const named = /\s(?:-s|--session|--sessions)\s+([\w-]+)(?:\s|$)/.exec(command)?.[1];
  const found = noxSession(reader, named ? [named] : ['tests', 'test']);
  if (typeof found === 'string') return found;
  notes.push(`nox translated to noxfile.py session "${found.session}" \`${found.command}\``);
  return { command: found.command, note: notes.join('; '), env: [] };
}

export function noxSession(
  reader: RepoReader,
  names: string[],
): { session: string; command: string } | string {
  const text = reader.readText('noxfile.py', 'dependencies');
  if (text === null) return 'nox: no noxfile.py';
  for (const session of names) {
    // `def tests(session` or `@nox.session(name="tests")` above any def.
    const def = new RegExp(
      `(?:@nox\\.session\\([^)]*name\\s*=\\s*["']${session}["'][^)]*\\)\\s*\\ndef\\s+\\w+|\\ndef\\s+${session})\\s*\\(\\s*session\\b`,
    ).exec(`\n${text}`);
    if (!def) continue;
    const body = `\n${text}`.slice(def.index + def[0].length);
    const end = body.search(/\n(?:@|def\s|class\s)/);
    for (const call of (end < 0 ? body : body.slice(0, end)).matchAll(/session\.run\(([^)]*)\)/g)) {
      const words = literalArgs(call[1]!);
      if (words && runsTests(words.join(' '))) return { session, command: words.join(' ') };
    }
    return `noxfile.py session "${session}": no session.run(...) of literal words runs tests`;
  }
  return `noxfile.py: no session named ${names.join(' or ')}`;
}

/** `"pytest", "-x", *session.posargs` → [pytest, -x]; null when an argument is not a literal. */
function literalArgs(args: string): string[] | null {
  const words: string[] = [];
  for (const raw of args.split(',').map((a) => a.trim())) {
    if (raw === '' || raw === '*session.posargs') continue;
    const literal = /^(["'])([^"'\\]*)\1$/.exec(raw);
    if (!literal) return null;
    words.push(literal[2]!);
  }
  return words.length ? words : null;
}

/** Makefile: the target's recipe lines, `@`/`-` stripped and simple variables expanded, joined with &&. */
export function fromMake(target: string, reader: RepoReader, notes: string[] = []): Translated | string {
  const text = reader.readText('Makefile', 'dependencies');
  if (text === null) return `make ${target}: no Makefile`;
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const vars = new Map<string, string>();
  for (const line of lines) {
    const v = /^([A-Za-z_][A-Za-z0-9_]*)\s*[?:]?=\s*(.*)$/.exec(line);
    if (v && !vars.has(v[1]!)) vars.set(v[1]!, v[2]!.trim());
  }
  const at = lines.findIndex((l) => new RegExp(`^${target}\\s*:(?!=)`).test(l));
  if (at < 0) return `Makefile: no ${target} target`;
  const recipe: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('\t')) break;
    const expanded = line
      .trim()
      .replace(/^[@-]+/, '')
      .replace(/\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]/g, (m, name: string) => vars.get(name) ?? m);
    if (/\$[({]/.test(expanded))
      return `Makefile ${target}: \`${line.trim()}\` uses a variable not set there`;
    if (expanded && !expanded.startsWith('#')) recipe.push(expanded);
  }
  if (!recipe.length) return `Makefile: the ${target} target has no recipe`;
  // `uv run --python 3.10 pytest tests/`, then 3.11, …: one run in the environment's Python.
  const unwrapped = [...new Set(recipe.map((line) => line.replace(WRAPPER, '')))];
  const command = unwrapped.join(' && ');
  notes.push(`make ${target} translated to its recipe \`${command}\` (prerequisites not run)`);
  if (unwrapped.length < recipe.length)
    notes.push(
      `${recipe.length} recipe lines ran ${unwrapped.length} command(s) through \`uv run\`-style wrappers (one per Python, say): run once, in the environment`,
    );
  return { command, note: notes.join('; '), env: [] };
}
