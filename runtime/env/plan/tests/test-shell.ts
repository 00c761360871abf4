// A test command line read the way a shell would start it, as text: its simple commands (split at
// `&&`, `||`, `;`, `|`), each without what only prepares the program's start — variable
// assignments (`VAR=x pytest`), `env [-i] [-u NAME] [VAR=x]...`, `time [-p]`, `nice`, `exec`,
// `command` — and which runner each one is. `cd dir` is a command of its own (it starts nothing).
// Nothing here runs the line: the sandbox's shell does, and finds every runner in the
// environment's bin (venv-launchers.ts).
import { shellWords } from '../infer/pytest-config.js';

const SEPARATORS = new Set(['&&', '||', ';', '|']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const PYTHON = /^(?:\S*\/)?python(?:3(?:\.\d+)?)?$/;
/** `coverage run` options written with their value as the next word. */
const COVERAGE_VALUED = new Set([
  '--source',
  '--omit',
  '--include',
  '--rcfile',
  '--concurrency',
  '--context',
  '--data-file',
]);

/** One simple command: the program's words, what precedes it removed. */
export type Words = string[];

/** Which runner a simple command starts, and the words it gives that runner. */
export type Runner =
  | { kind: 'pytest' | 'unittest'; args: Words }
  | { kind: 'module'; module: string; args: Words }
  | { kind: 'program'; program: string; args: Words };

/** The simple commands of `line`, each with its program first. */
export function simpleCommands(line: string): Words[] {
  const commands: Words[] = [[]];
  for (const word of shellWords(line)) {
    if (SEPARATORS.has(word)) {
      commands.push([]);
      continue;
    }
    const ends = word.endsWith(';');
    const text = ends ? word.slice(0, -1) : word;
    if (text !== '') commands[commands.length - 1]!.push(text);
    if (ends) commands.push([]);
  }
  return commands.map(withoutPrefix).filter((c) => c.length > 0);
}

/** The words after what only sets up the program's start. */
function withoutPrefix(words: Words): Words {
  let at = 0;
  for (;;) {
    const word = words[at];
    if (word === undefined) return [];
    if (ASSIGNMENT.test(word)) at++;
    else if (word === 'env') {
      at++;
      while (words[at] !== undefined && /^-/.test(words[at]!)) at += words[at] === '-u' ? 2 : 1;
    } else if (word === 'time' || word === 'exec' || word === 'command' || word === 'nice') {
      at++;
      while (words[at] !== undefined && /^-/.test(words[at]!)) at += words[at] === '-n' ? 2 : 1;
    } else return words.slice(at);
  }
}

/** The module a `python [options] -m MODULE ARGS` runs, with its args; null for another form. */
function pythonModule(words: Words): { module: string; args: Words } | null {
  if (!PYTHON.test(words[0] ?? '')) return null;
  let at = 1;
  while (words[at]?.startsWith('-') && words[at] !== '-m' && words[at] !== '-c')
    at += words[at] === '-X' || words[at] === '-W' ? 2 : 1;
  const module = words[at] === '-m' ? words[at + 1] : undefined;
  return module ? { module, args: words.slice(at + 2) } : null;
}

/** What `coverage run [options] -m MODULE ARGS` runs under coverage; null for a script or another subcommand. */
function coverageRun(args: Words): { module: string; args: Words } | null {
  if (args[0] !== 'run') return null;
  let at = 1;
  while (args[at]?.startsWith('-') && args[at] !== '-m') at += COVERAGE_VALUED.has(args[at]!) ? 2 : 1;
  const module = args[at] === '-m' ? args[at + 1] : undefined;
  return module ? { module, args: args.slice(at + 2) } : null;
}

function ofModule(module: string, args: Words): Runner {
  if (module === 'pytest' || module === 'py.test') return { kind: 'pytest', args };
  if (module === 'unittest') return { kind: 'unittest', args };
  return { kind: 'module', module, args };
}

/**
 * The runners one simple command starts, outermost first: `coverage run -m pytest -x` is
 * coverage's, then pytest's with `-x`.
 */
export function runnersOf(words: Words): Runner[] {
  const program = words[0] ?? '';
  const viaPython = pythonModule(words);
  const outer: Runner = viaPython
    ? ofModule(viaPython.module, viaPython.args)
    : program === 'pytest' || program === 'py.test'
      ? { kind: 'pytest', args: words.slice(1) }
      : { kind: 'program', program, args: words.slice(1) };
  const isCoverage =
    (outer.kind === 'module' && outer.module === 'coverage') ||
    (outer.kind === 'program' && outer.program === 'coverage');
  const inner = isCoverage ? coverageRun(outer.args) : null;
  return inner ? [outer, ofModule(inner.module, inner.args)] : [outer];
}

/** Every runner the line starts, in order. */
export function lineRunners(line: string): Runner[] {
  return simpleCommands(line).flatMap(runnersOf);
}
