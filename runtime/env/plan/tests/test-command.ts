// The project's own test command, found as its CI would run it. The recipe's `test` key, when set,
// is the command. Otherwise every candidate, in this order: the CI workflows' test steps (with
// their env); tox.ini [testenv] commands (with its setenv); a nox session named tests/test; a
// Makefile `test` target; pytest configuration (`python -m pytest`, which reads it); a suite of
// unittest.TestCase files and no pytest in sight (`python -m unittest discover -s DIR`); then
// `python -m pytest`. The one that runs most of the suite wins (test-rank.ts), the earliest among
// equals, and a decision says why. Runners the sandbox does not run (tox, nox, make) become the
// command they would run (test-runners.ts). Every file is read as text, none executed, and none
// becomes an input of the environment's key: the test command does not change what is built.
import { importsPytest, usesUnittestTestCase } from '../read/text-scan.js';
import { parse } from 'smol-toml';
import { workflowTestSteps } from './ci-workflow.js';
import { parseIni } from '../read/ini.js';
import { RepoReader } from '../read/repo-reader.js';
import { REFUSED_NAMES, safeTestEnv } from './test-env.js';
import { rankCommand, type Rank } from './test-rank.js';
import { fromMake, fromTox, noxSession, translate, type Translated } from './test-runners.js';
import { isTable } from '../read/toml.js';

export const DEFAULT_TEST_COMMAND = 'python -m pytest';
/** testCommandFrom of the default: nothing in the project names a test command. */
export const DEFAULT_TEST_FROM = 'the default (nothing in the project names a test command)';
/** testCommandFrom of the default when it won over the project's narrower commands. */
const DISCOVERY_FROM = "pytest's discovery (the default), over the project's narrower commands";

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
  const found =
    recipeTest !== undefined
      ? { command: recipeTest, from: '.piper/sandbox.toml test', note: '', env: [] }
      : chooseCandidate(candidates(reader, decisions), decisions);
  const env = safeTestEnv(found.env, found.envFrom ?? found.from, decisions);
  decisions.push(`test command \`${found.command}\`: ${found.from}${found.note ? ` (${found.note})` : ''}`);
  if (Object.keys(env).length)
    decisions.push(
      `test variables ${Object.keys(env).join(', ')} set in every run_test; a test step never sets ${REFUSED_NAMES.join(', ')} or what the sandbox image sets`,
    );
  return { command: found.command, from: found.from, env };
}

/** A candidate: `line` is what its source wrote, when the command is its translation. */
type Found = Translated & { from: string; line?: string };

/**
 * pytest's discovery, when the project names commands of its own, wins only over those that are
 * not the suite (one test, a version check): a named file or a script of its own is the project's
 * word for its suite, and discovery might collect what it never runs.
 */
const DISCOVERY_RANK: Rank = { score: 1.5, what: "pytest's discovery" };

/** The suite wins: the highest rank (test-rank.ts), the earliest source among equals. */
function chooseCandidate(found: Found[], decisions: string[]): Found {
  const ranked = found.map((f) => ({
    ...f,
    rank: f.from === DISCOVERY_FROM ? DISCOVERY_RANK : rankCommand(f.line ?? f.command, f.command),
  }));
  const winner = ranked.reduce((best, f) => (f.rank.score > best.rank.score ? f : best));
  // The default is the fallback, not one of the project's commands: never listed as passed over.
  const over = ranked.filter((f) => f.rank.score < winner.rank.score && f.from !== DISCOVERY_FROM);
  if (over.length) {
    const losers = over
      .slice(0, 3)
      .map((f) => `\`${f.command}\` (${f.from}: ${f.rank.what})`)
      .join(', ');
    const more = over.length > 3 ? ` and ${over.length - 3} more` : '';
    decisions.push(
      `test command \`${winner.command}\` chosen: it runs ${winner.rank.what}, over ${losers}${more}`,
    );
  }
  return winner;
}

/**
 * Every command the project names for its tests, in the order of its sources: the CI workflow's
 * test steps, tox.ini [testenv] commands, a nox session tests/test, a Makefile `test` target,
 * pytest's configuration, a unittest-only suite; pytest's discovery (the default) last.
 */
function candidates(reader: RepoReader, decisions: string[]): Found[] {
  const out: Found[] = [];
  for (const step of workflowTestSteps(reader, decisions)) {
    const translated = translate(step.line, reader);
    // The step's own env applies to what it runs; tox's setenv comes under it.
    if (typeof translated !== 'string')
      out.push({
        ...translated,
        line: step.line,
        from: step.from,
        env: [...translated.env, ...step.env],
        envFrom: step.from,
      });
    else decisions.push(`${step.from}: \`${step.line}\` not used: ${translated}`);
  }
  const tox = fromTox(reader);
  if (typeof tox !== 'string') out.push({ ...tox, note: '', from: 'tox.ini [testenv] commands' });
  const nox = noxSession(reader, ['tests', 'test']);
  if (typeof nox !== 'string')
    out.push({ command: nox.command, from: `noxfile.py session "${nox.session}"`, note: '', env: [] });
  const make = fromMake('test', reader);
  if (typeof make !== 'string') out.push({ ...make, from: 'Makefile test target' });
  const pytestConfig = pytestConfigFile(reader);
  if (pytestConfig) out.push({ command: DEFAULT_TEST_COMMAND, from: pytestConfig, note: '', env: [] });
  const unittestDir = unittestOnly(reader);
  if (unittestDir !== null) {
    const top = unittestDir !== '.' && reader.isFile(`${unittestDir}/__init__.py`) ? ' -t .' : '';
    const command = `python -m unittest discover -s ${unittestDir}${top}`;
    out.push({
      command,
      from: `unittest.TestCase suites in ${unittestDir}/ and no pytest`,
      note: '',
      env: [],
    });
  }
  const from = out.length ? DISCOVERY_FROM : DEFAULT_TEST_FROM;
  out.push({ command: DEFAULT_TEST_COMMAND, from, note: '', env: [] });
  return out;
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
    // A plain `def test_` function or a `class TestX:` of no base is pytest's alone: unittest never
    // runs it, so a file that mixes them with TestCase classes is a pytest suite.
    const usesPytest = texts.some((t) => importsPytest(t) || pytestOnlyTests(t));
    const usesUnittest = texts.some(usesUnittestTestCase);
    return usesUnittest && !usesPytest && !files.some((f) => f.endsWith('conftest.py')) ? dir : null;
  }
  return null;
}

/** Tests only pytest collects: module-level test functions, and test classes with no base class. */
function pytestOnlyTests(text: string): boolean {
  return (
    /^(?:async\s+)?def\s+test\w*\s*\(/m.test(text) ||
    /^class\s+Test\w*\s*(?:\(\s*(?:object)?\s*\))?\s*:/m.test(text)
  );
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
