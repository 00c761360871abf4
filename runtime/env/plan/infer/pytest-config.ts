// The pytest configuration, found where pytest looks (the first that has one wins): pytest.ini
// (or .pytest.ini) [pytest], pyproject.toml [tool.pytest.ini_options] (or pytest 9's
// [tool.pytest]), tox.ini [pytest], setup.cfg [tool:pytest]. Its values are strings or, from TOML,
// lists; `values()` reads either as a list of words.
import { parseIni } from '../read/ini.js';
import { PYPROJECT } from '../deps/pyproject.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isTable, type TomlTable } from '../read/toml.js';

export interface PytestConfig {
  /** Where it was read, e.g. `pyproject.toml [tool.pytest.ini_options]`. */
  source: string;
  options: Map<string, unknown>;
}

const INI_FILES: Array<[string, string]> = [
  ['pytest.ini', 'pytest'],
  ['.pytest.ini', 'pytest'],
];

function fromIni(reader: RepoReader, file: string, section: string): PytestConfig | null {
  if (!reader.isFile(file)) return null;
  const text = reader.readText(file, 'dependencies');
  const found = text === null ? undefined : parseIni(text, file).get(section);
  return found ? { source: `${file} [${section}]`, options: new Map(found) } : null;
}

function fromPyproject(pyproject: TomlTable | null): PytestConfig | null {
  const tool = pyproject && isTable(pyproject.tool) ? pyproject.tool : {};
  const pytest = isTable(tool.pytest) ? tool.pytest : null;
  if (!pytest) return null;
  if (isTable(pytest.ini_options))
    return {
      source: `${PYPROJECT} [tool.pytest.ini_options]`,
      options: new Map(Object.entries(pytest.ini_options)),
    };
  return { source: `${PYPROJECT} [tool.pytest]`, options: new Map(Object.entries(pytest)) };
}

export function readPytestConfig(reader: RepoReader, pyproject: TomlTable | null): PytestConfig | null {
  for (const [file, section] of INI_FILES) {
    // pytest.ini is pytest's even without a [pytest] section: it stops the search.
    if (reader.isFile(file)) return fromIni(reader, file, section);
  }
  return (
    fromPyproject(pyproject) ??
    fromIni(reader, 'tox.ini', 'pytest') ??
    fromIni(reader, 'setup.cfg', 'tool:pytest')
  );
}

/** Split a command line the way shlex does for the simple cases addopts holds. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const found of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g))
    words.push(found[1] ?? found[2] ?? found[3] ?? '');
  return words;
}

/** A value as a list of words: a TOML list as it is, a string split (addopts with shell quoting). */
export function values(config: PytestConfig, key: string): string[] {
  const value = config.options.get(key);
  if (Array.isArray(value))
    return value.filter((v): v is string => typeof v === 'string').flatMap(shellWords);
  return typeof value === 'string' ? shellWords(value) : [];
}
