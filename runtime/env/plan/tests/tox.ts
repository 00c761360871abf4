// tox's base test environment, wherever tox reads it from: tox.ini's [testenv], the same INI text
// in pyproject.toml's [tool.tox].legacy_tox_ini, or tox 4's native TOML ([tool.tox.env_run_base]
// in pyproject.toml, [env_run_base] in tox.toml). `deps` lines are requirements-file lines (so
// `-r requirements-test.txt` works); tox substitutions (`{[base]deps}`) and factor-conditional
// lines (`py311: mock`) cannot be resolved without tox and are skipped, with the reason. `extras`
// names the project's extras to install, `dependency_groups` (native only) its PEP 735 groups.
import { iniLines, parseIni } from '../read/ini.js';
import { PYPROJECT } from '../deps/pyproject.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isTable, readToml, type TomlTable } from '../read/toml.js';

const TOX_INI = 'tox.ini';
const TOX_TOML = 'tox.toml';

export interface ToxTestenv {
  /** Where it was read, for decisions: e.g. `tox.ini [testenv]`. */
  source: string;
  /** The file `-r` paths in deps are relative to. */
  file: string;
  /** Lines of deps that read as requirement-file lines, with where each came from. */
  deps: Array<{ text: string; from: string }>;
  skipped: Array<{ line: string; from: string; reason: string }>;
  extras: Array<{ extra: string; from: string }>;
  groups: Array<{ group: string; from: string }>;
}

function fromIni(text: string, file: string, label: string): ToxTestenv | null {
  const testenv = parseIni(text, file).get('testenv');
  if (!testenv) return null;
  const source = `${label} [testenv]`;
  const from = `${source}.deps`;
  const out: ToxTestenv = { source, file, deps: [], skipped: [], extras: [], groups: [] };
  for (const line of iniLines(testenv.get('deps'))) {
    if (line.includes('{')) out.skipped.push({ line, from, reason: 'a tox substitution: not resolved' });
    else if (/^[A-Za-z0-9_.,!-]+:\s/.test(line) && !line.startsWith('-')) {
      out.skipped.push({ line, from, reason: 'a tox factor-conditional line: not resolved' });
    } else out.deps.push({ text: line, from });
  }
  for (const extra of iniLines(testenv.get('extras')?.replace(/,/g, '\n')))
    out.extras.push({ extra, from: `${source}.extras` });
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function fromNative(base: TomlTable, file: string, label: string): ToxTestenv {
  const out: ToxTestenv = { source: label, file, deps: [], skipped: [], extras: [], groups: [] };
  const from = `${label}.deps`;
  for (const text of strings(base.deps)) {
    if (text.includes('{'))
      out.skipped.push({ line: text, from, reason: 'a tox substitution: not resolved' });
    else out.deps.push({ text, from });
  }
  for (const extra of strings(base.extras)) out.extras.push({ extra, from: `${label}.extras` });
  for (const group of strings(base.dependency_groups))
    out.groups.push({ group, from: `${label}.dependency_groups` });
  return out;
}

/** Every base test environment the repository declares (usually one). */
export function readToxTestenvs(reader: RepoReader, pyproject: TomlTable | null): ToxTestenv[] {
  const found: ToxTestenv[] = [];
  const ini = reader.readText(TOX_INI, 'dependencies');
  const fromToxIni = ini === null ? null : fromIni(ini, TOX_INI, TOX_INI);
  if (fromToxIni) found.push(fromToxIni);
  const tool = pyproject && isTable(pyproject.tool) ? pyproject.tool : {};
  const tox = isTable(tool.tox) ? tool.tox : null;
  if (tox && typeof tox.legacy_tox_ini === 'string') {
    const legacy = fromIni(tox.legacy_tox_ini, PYPROJECT, `${PYPROJECT} [tool.tox].legacy_tox_ini`);
    if (legacy) found.push(legacy);
  }
  if (tox && isTable(tox.env_run_base))
    found.push(fromNative(tox.env_run_base, PYPROJECT, `${PYPROJECT} [tool.tox.env_run_base]`));
  const toml = reader.isFile(TOX_TOML)
    ? readToml(reader, TOX_TOML, 'dependencies', 'bad_project_file')
    : null;
  if (toml && isTable(toml.env_run_base))
    found.push(fromNative(toml.env_run_base, TOX_TOML, `${TOX_TOML} [env_run_base]`));
  return found;
}
