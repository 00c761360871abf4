// Poetry's own dependency tables in pyproject.toml: [tool.poetry.dependencies] (runtime; `python`
// is the project's requires-python; `optional = true` ones belong to extras only), the groups
// [tool.poetry.group.<name>.dependencies] whose name passes the test-name rule, and the legacy
// [tool.poetry.dev-dependencies]. Each value is a Poetry constraint string, a table (`version`,
// `extras`, `optional`, `python`, `markers`; a `path` one is skipped, a `git`/`url` one is a direct
// reference, `name @ URL`) or a list of such tables, one per Python; all become PEP 508 text.
import { PYPROJECT, type ListedRequirement } from './pyproject.js';
import { poetryPythonMarker, poetryToPep440 } from './poetry-version.js';
import { isTestName } from '../tests/test-names.js';
import { isTable, type TomlTable } from '../read/toml.js';
import type { SkippedRequirement } from '../types.js';
import { appendAll } from '../../../text/append.js';
import { quoted } from '../read/version-bounds.js';

export interface PoetrySections {
  /** [tool.poetry].name (Poetry before 2.0 keeps the name there, not in [project]). */
  name: string | null;
  runtime: ListedRequirement[];
  test: ListedRequirement[];
  /** Group tables read (e.g. `[tool.poetry.group.test]`), and those not read (their names fail the rule). */
  read: string[];
  notRead: string[];
  /** [tool.poetry.dependencies].python as PEP 440, null when absent or not convertible. */
  python: string | null;
  skipped: SkippedRequirement[];
}

function tableAt(root: TomlTable, ...path: string[]): TomlTable | null {
  let here: unknown = root;
  for (const part of path) here = isTable(here) ? here[part] : undefined;
  return isTable(here) ? here : null;
}

function joinMarkers(markers: string[]): string {
  const real = markers.filter((m) => m !== '');
  return real.length > 1 ? real.map((m) => `(${m})`).join(' and ') : (real[0] ?? '');
}

/** One Poetry dependency as PEP 508 text, or why it cannot be one. */
function toPep508(name: string, value: unknown, runtime: boolean): string | { skip: string } {
  if (typeof value === 'string') {
    const spec = poetryToPep440(value);
    return spec === null
      ? { skip: `Poetry constraint "${quoted(value)}" has no PEP 440 form: not read` }
      : name + spec;
  }
  if (!isTable(value)) return { skip: 'not a Poetry constraint or table: not read' };
  if (value.path !== undefined) return { skip: 'a Poetry path dependency: not installed from an index' };
  if (runtime && value.optional === true) return { skip: 'optional: only installed with a Poetry extra' };
  const direct = poetryDirectUrl(value);
  if (direct === null) return { skip: 'a Poetry git or url dependency whose value is not a string' };
  const spec = typeof value.version === 'string' ? poetryToPep440(value.version) : '';
  if (spec === null)
    return { skip: `Poetry constraint "${quoted(String(value.version))}" has no PEP 440 form: not read` };
  const extras = Array.isArray(value.extras) ? value.extras.filter((e) => typeof e === 'string') : [];
  const python = typeof value.python === 'string' ? poetryPythonMarker(value.python) : '';
  if (python === null)
    return { skip: `Poetry python constraint "${quoted(String(value.python))}" has no PEP 440 form` };
  const marker = joinMarkers([python, typeof value.markers === 'string' ? value.markers : '']);
  const head = `${name}${extras.length ? `[${extras.join(',')}]` : ''}`;
  // A direct reference: planned with its URL, fetched only with trust, else asked for by name.
  if (direct) return `${head} @ ${direct}${marker ? ` ; ${marker}` : ''}`;
  return `${head}${spec}${marker ? ` ; ${marker}` : ''}`;
}

/** A `git = "..."` (with `rev`/`tag`/`branch`) or `url = "..."` table as a PEP 508 URL; '' for neither. */
function poetryDirectUrl(value: TomlTable): string | null {
  if (value.git === undefined && value.url === undefined) return '';
  if (typeof value.url === 'string') return value.url;
  if (typeof value.git !== 'string') return null;
  const ref = [value.rev, value.tag, value.branch].find((r) => typeof r === 'string');
  return `git+${value.git}${ref ? `@${ref as string}` : ''}`;
}

function readTable(
  table: TomlTable,
  key: string,
  runtime: boolean,
  out: PoetrySections,
): ListedRequirement[] {
  const listed: ListedRequirement[] = [];
  const from = `${PYPROJECT} ${key}`;
  for (const [name, value] of Object.entries(table)) {
    if (runtime && name.toLowerCase() === 'python') continue;
    // A list of tables: one constraint per Python (its marker picks the one that applies).
    for (const one of Array.isArray(value) ? value : [value]) {
      const text = toPep508(name, one, runtime);
      if (typeof text === 'string') listed.push({ text, from });
      else out.skipped.push({ line: name, from, reason: text.skip });
    }
  }
  return listed;
}

export function readPoetry(root: TomlTable): PoetrySections | null {
  const poetry = tableAt(root, 'tool', 'poetry');
  if (!poetry) return null;
  const out: PoetrySections = {
    name: typeof poetry.name === 'string' ? poetry.name : null,
    runtime: [],
    test: [],
    read: [],
    notRead: [],
    python: null,
    skipped: [],
  };
  const dependencies = tableAt(poetry, 'dependencies');
  if (dependencies) {
    out.runtime = readTable(dependencies, '[tool.poetry.dependencies]', true, out);
    if (typeof dependencies.python === 'string') out.python = poetryToPep440(dependencies.python);
  }
  for (const [group, body] of Object.entries(tableAt(poetry, 'group') ?? {})) {
    const deps = isTable(body) ? tableAt(body, 'dependencies') : null;
    if (!deps) continue;
    const key = `[tool.poetry.group.${group}.dependencies]`;
    if (!isTestName(group)) {
      out.notRead.push(key);
      continue;
    }
    out.read.push(key);
    appendAll(out.test, readTable(deps, key, false, out));
  }
  const legacy = tableAt(poetry, 'dev-dependencies');
  if (legacy) {
    out.read.push('[tool.poetry.dev-dependencies]');
    appendAll(out.test, readTable(legacy, '[tool.poetry.dev-dependencies]', false, out));
  }
  return out;
}
