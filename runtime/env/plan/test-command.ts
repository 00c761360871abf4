// The project's own test command, found as its CI would run it, in this order, the first found
// winning: the recipe's `test` key; the CI workflow's test step (with its env); tox.ini
// [testenv] commands (with its setenv); a nox session named tests/test; a Makefile `test` target;
// pytest configuration (`python -m pytest`, which reads it); a suite of unittest.TestCase files
// and no pytest in sight (`python -m unittest discover -s DIR`); else `python -m pytest`.
// Runners the sandbox does not run (tox, nox, make) become the command they would run
// (test-runners.ts). Every file is read as text, none executed, and none becomes an input of the
// environment's key: the test command does not change what is built.
import { importsPytest, usesUnittestTestCase } from './text-scan.js';
import { parse } from 'smol-toml';
import { workflowTestStep } from './ci-workflow.js';
import { parseIni } from './ini.js';
import { RepoReader } from './repo-reader.js';
import { REFUSED_NAMES, safeTestEnv } from './test-env.js';
import { fromMake, fromTox, noxSession, translate, type Translated } from './test-runners.js';
import { isTable } from './toml.js';

export const DEFAULT_TEST_COMMAND = 'python -m pytest';
/** testCommandFrom of the default: nothing in the project names a test command. */
export const DEFAULT_TEST_FROM = 'the default (nothing in the project names a test command)';

export interface TestCommand {
  command: string;
  from: string;
  env: Record<string, string>;
}

export function detectTestCommand(
  repoRoot: string,
  recipeTest: string | undefined,
  decisions: string[],
): TestCommand {
  // A reader of its own: what it reads is not recorded among the plan's (cache-key) inputs.
  const reader = new RepoReader(repoRoot);
  const found = firstFound(reader, recipeTest, decisions);
  const env = safeTestEnv(found.env, found.envFrom ?? found.from, decisions);
  decisions.push(`test command \`${found.command}\`: ${found.from}${found.note ? ` (${found.note})` : ''}`);
  if (Object.keys(env).length)
    decisions.push(
      `test variables ${Object.keys(env).join(', ')} set in every run_test; a test step never sets ${REFUSED_NAMES.join(', ')} or what the sandbox image sets`,
    );
  return { command: found.command, from: found.from, env };
}

type Found = Translated & { from: string };

function firstFound(reader: RepoReader, recipeTest: string | undefined, decisions: string[]): Found {
  if (recipeTest !== undefined)
    return { command: recipeTest, from: '.piper/sandbox.toml test', note: '', env: [] };
  const step = workflowTestStep(reader, decisions);
  if (step) {
    const translated = translate(step.line, reader);
    if (typeof translated !== 'string') {
      // The step's own env applies to what it runs; tox's setenv comes under it.
      return { ...translated, from: step.from, env: [...translated.env, ...step.env], envFrom: step.from };
    }
    decisions.push(`${step.from}: \`${step.line}\` not used: ${translated}`);
  }
  const tox = fromTox(reader);
  if (typeof tox !== 'string') return { ...tox, note: '', from: 'tox.ini [testenv] commands' };
  const nox = noxSession(reader, ['tests', 'test']);
  if (typeof nox !== 'string')
    return { command: nox.command, from: `noxfile.py session "${nox.session}"`, note: '', env: [] };
  const make = fromMake('test', reader);
  if (typeof make !== 'string') return { ...make, from: 'Makefile test target' };
  const pytestConfig = pytestConfigFile(reader);
  if (pytestConfig) return { command: DEFAULT_TEST_COMMAND, from: pytestConfig, note: '', env: [] };
  const unittestDir = unittestOnly(reader);
  if (unittestDir !== null) {
    const top = unittestDir !== '.' && reader.isFile(`${unittestDir}/__init__.py`) ? ' -t .' : '';
    const command = `python -m unittest discover -s ${unittestDir}${top}`;
    return { command, from: `unittest.TestCase suites in ${unittestDir}/ and no pytest`, note: '', env: [] };
  }
  return { command: DEFAULT_TEST_COMMAND, from: DEFAULT_TEST_FROM, note: '', env: [] };
}

/** Where pytest's configuration is, preferring one that names testpaths; null with none. */
function pytestConfigFile(reader: RepoReader): string | null {
  const pyproject = reader.readText('pyproject.toml', 'dependencies');
  if (pyproject !== null) {
    try {
      const tool = (parse(pyproject) as Record<string, unknown>).tool;
      const pytest = isTable(tool) ? tool.pytest : undefined;
      const options = isTable(pytest) ? pytest.ini_options : undefined;
      if (isTable(options))
        return `pyproject.toml [tool.pytest.ini_options]${options.testpaths !== undefined ? ' testpaths' : ''}`;
    } catch {
      // The plan's own reading of pyproject.toml reports it.
    }
  }
  for (const [file, section] of [
    ['pytest.ini', 'pytest'],
    ['tox.ini', 'pytest'],
    ['setup.cfg', 'tool:pytest'],
  ] as const) {
    const text = reader.readText(file, 'dependencies');
    if (text === null) continue;
    try {
      const options = parseIni(text, file).get(section);
      if (options) return `${file} [${section}]${options.has('testpaths') ? ' testpaths' : ''}`;
    } catch {
      continue;
    }
  }
  return null;
}

/** The directory of a suite written only with unittest (tests/, test/ or the root); null otherwise. */
function unittestOnly(reader: RepoReader): string | null {
  if (reader.isFile('conftest.py')) return null;
  for (const dir of ['tests', 'test', '.']) {
    const files = testFiles(reader, dir, dir === '.' ? 0 : 2);
    if (!files.length) continue;
    const texts = files.map((f) => reader.readText(f, 'dependencies') ?? '');
    const usesPytest = texts.some(importsPytest);
    const usesUnittest = texts.some(usesUnittestTestCase);
    return usesUnittest && !usesPytest && !files.some((f) => f.endsWith('conftest.py')) ? dir : null;
  }
  return null;
}

function testFiles(reader: RepoReader, dir: string, depth: number, out: string[] = []): string[] {
  for (const name of reader.list(dir)) {
    if (out.length >= 200) break;
    const path = dir === '.' ? name : `${dir}/${name}`;
    if (reader.isFile(path)) {
      if (/^(test_.*|.*_test|conftest)\.py$/.test(name)) out.push(path);
    } else if (depth > 0 && !name.startsWith('.') && reader.isDir(path))
      testFiles(reader, path, depth - 1, out);
  }
  return out;
}
