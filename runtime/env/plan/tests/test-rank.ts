// How much of the suite a test command line runs, so the default test command is the suite and not
// the first line that happens to call pytest: a CI step checking the version with one test id, a
// doc build or a lint run through pytest never wins over a line that runs a test directory,
// discovery, or the tox/nox test environment. Read as text (test-shell.ts), never run.
import { isTestName } from './test-names.js';
import { lineRunners, simpleCommands, type Runner } from './test-shell.js';

export interface Rank {
  /** 3 the suite, 2 part of it (named files or modules), 1 one test, 0 not a test run. */
  score: number;
  /** What the line runs, for the decision: `runs the test directory tests`. */
  what: string;
}

/** pytest options whose value is the next word (`-k name`, `--ignore dir`). */
const PYTEST_VALUED = new Set([
  '-k',
  '-m',
  '-p',
  '-c',
  '-o',
  '-W',
  '-n',
  '-r',
  '--rootdir',
  '--basetemp',
  '--junitxml',
  '--junit-xml',
  '--ignore',
  '--ignore-glob',
  '--deselect',
  '--tb',
  '--maxfail',
  '--durations',
  '--confcutdir',
  '--import-mode',
  '--cov',
  '--cov-report',
  '--cov-config',
  '--log-level',
  '--log-cli-level',
  '--capture',
  '--color',
  '--timeout',
  '--reruns',
  '--dist',
  '--numprocesses',
  '--override-ini',
  '--doctest-glob',
  '--strict-markers-file',
  '--html',
  '--tx',
]);
const NOT_A_RUN: Record<string, string> = {
  '--version': 'a version check',
  '-V': 'a version check',
  '--help': 'a help text',
  '-h': 'a help text',
  '--co': 'a collection only',
  '--collect-only': 'a collection only',
  '--fixtures': 'a fixture listing',
  '--markers': 'a marker listing',
};
const LINTERS = /^(mypy|flake8|pylint|black|isort|ruff|pycodestyle|pydocstyle|codestyle|pep8)$/;
const DOCS = /^(docs?|documentation)(\/|$)|\.(rst|md|txt)$/;
const ONE_NAME = /^[A-Za-z_][\w]*$/;

/** pytest's words split into options (with their values) and positional arguments. */
function pytestWords(args: string[]): { options: Map<string, string>; positional: string[] } {
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.startsWith('-')) positional.push(word);
    else if (word.includes('='))
      options.set(word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1));
    else if (PYTEST_VALUED.has(word)) options.set(word, args[++i] ?? '');
    else options.set(word, '');
  }
  return { options, positional };
}

function rankPytest(args: string[]): Rank {
  const { options, positional } = pytestWords(args);
  for (const [option, what] of Object.entries(NOT_A_RUN))
    if (options.has(option)) return { score: 0, what: `${what} (${option})` };
  const marker = options.get('-m') ?? '';
  if (LINTERS.test(marker)) return { score: 0, what: `a lint run (-m ${marker})` };
  if (positional.some((p) => p.includes('::')))
    return { score: 1, what: `one test id (${positional.find((p) => p.includes('::'))})` };
  const k = options.get('-k');
  if (k !== undefined && ONE_NAME.test(k)) return { score: 1, what: `one test name (-k ${k})` };
  if (positional.length && positional.every((p) => DOCS.test(p)))
    return { score: 0, what: `a doc test (${positional.join(' ')})` };
  if (positional.length && positional.every((p) => /\.py$/.test(p)))
    return { score: 2, what: `named test files only (${positional.join(' ')})` };
  if (positional.length) return { score: 3, what: `the test directory ${positional.join(' ')}` };
  return { score: 3, what: "pytest's discovery" };
}

function rankUnittest(args: string[]): Rank {
  if (!args.length || args[0] === 'discover' || args.every((a) => a.startsWith('-') && a !== '-k'))
    return { score: 3, what: 'unittest discovery' };
  const k = args.indexOf('-k');
  if (k >= 0 && ONE_NAME.test(args[k + 1] ?? ''))
    return { score: 1, what: `one test name (-k ${args[k + 1]})` };
  const names = args.filter((a) => !a.startsWith('-'));
  if (names.length === 1 && /\.test\w*$/.test(names[0]!) && names[0]!.split('.').length >= 3)
    return { score: 1, what: `one test (${names[0]})` };
  return { score: 2, what: `named test modules only (${names.join(' ')})` };
}

function rankRunner(runner: Runner): Rank | null {
  if (runner.kind === 'pytest') return rankPytest(runner.args);
  if (runner.kind === 'unittest') return rankUnittest(runner.args);
  const name = runner.kind === 'module' ? runner.module : runner.kind === 'program' ? runner.program : '';
  if (/^(nose2|trial|twisted\.trial|zope-testrunner|zope\.testrunner)$/.test(name))
    return { score: 3, what: `the ${name} runner` };
  return null;
}

/** The tox environments (`-e a,b`) or nox sessions (`-s a`) a line names, when none is a test one. */
function notATestEnvironment(line: string): Rank | null {
  for (const words of simpleCommands(line)) {
    const tool = words[0];
    if (tool !== 'tox' && tool !== 'nox') continue;
    const at = words.findIndex((w) => w === '-e' || w === '-s' || w === '--session' || w === '--sessions');
    const names = at >= 0 ? (words[at + 1] ?? '').split(',').filter(Boolean) : [];
    const testEnv = (n: string) => /^py(\d+|py\d*)?(-|$)/.test(n) || isTestName(n) || /test|cov/.test(n);
    if (names.length && !names.some(testEnv))
      return { score: 0, what: `${tool} ${names.join(',')}, not a test environment` };
  }
  return null;
}

/** The rank of a candidate: its written line (a tox/nox environment it names) and the command it runs. */
export function rankCommand(line: string, command: string = line): Rank {
  const env = notATestEnvironment(line);
  if (env) return env;
  const ranks = lineRunners(command).flatMap((r) => rankRunner(r) ?? []);
  if (!ranks.length) return { score: 2, what: 'a command of its own' };
  return ranks.reduce((best, r) => (r.score > best.score ? r : best));
}
