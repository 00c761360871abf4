// What pyproject.toml says about the environment: [project] name, dependencies, optional
// dependencies; PEP 735 [dependency-groups] (with `{include-group = "..."}` resolved, cycles an
// error, as the PEP asks); [build-system]; and where the build backend's config puts the packages.
import { EnvPlanError } from '../errors.js';
import { normalizeName } from '../read/normalize.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isTable, readToml, type TomlTable } from '../read/toml.js';

export const PYPROJECT = 'pyproject.toml';

/** A requirement string and the key it was listed under. */
export interface ListedRequirement {
  text: string;
  from: string;
}

export interface Pyproject {
  hasProject: boolean;
  hasBuildSystem: boolean;
  name: string | null;
  dynamic: string[];
  /** [project].dependencies; null when absent. */
  dependencies: ListedRequirement[] | null;
  /** [project.optional-dependencies], by extra name as written. */
  optional: Map<string, ListedRequirement[]>;
  /** [dependency-groups] names as written; resolve one with resolveGroup. */
  groups: string[];
  buildBackend: string | null;
  buildRequires: ListedRequirement[] | null;
  /** Where the backend's configuration puts the packages (e.g. 'src', '.'), and which key says so. */
  packageDir: { dir: string; key: string } | null;
  /** [project].requires-python, null when absent or not a string. */
  requiresPython: string | null;
  /** [project].classifiers (strings only). */
  classifiers: string[];
  table: TomlTable;
}

function bad(key: string, expected: string, got: unknown): never {
  throw new EnvPlanError(
    'bad_project_file',
    `${PYPROJECT}: ${key} must be ${expected}, got ${JSON.stringify(got)}`,
    {
      file: PYPROJECT,
      key,
      expected,
    },
  );
}

function stringList(value: unknown, key: string): ListedRequirement[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    bad(key, 'a list of strings', value);
  return (value as string[]).map((text) => ({ text, from: `${PYPROJECT} ${key}` }));
}

function table(value: unknown, key: string): TomlTable {
  if (value === undefined) return {};
  if (!isTable(value)) bad(key, 'a table', value);
  return value;
}

function at(root: TomlTable, ...path: string[]): unknown {
  let here: unknown = root;
  for (const part of path) here = isTable(here) ? here[part] : undefined;
  return here;
}

function packageDirOf(root: TomlTable): Pyproject['packageDir'] {
  const setuptoolsDir = at(root, 'tool', 'setuptools', 'package-dir');
  if (isTable(setuptoolsDir) && typeof setuptoolsDir[''] === 'string') {
    return { dir: setuptoolsDir[''], key: '[tool.setuptools].package-dir' };
  }
  const where = at(root, 'tool', 'setuptools', 'packages', 'find', 'where');
  if (Array.isArray(where) && typeof where[0] === 'string') {
    return { dir: where[0], key: '[tool.setuptools.packages.find].where' };
  }
  const hatch = at(root, 'tool', 'hatch', 'build', 'targets', 'wheel', 'packages');
  if (Array.isArray(hatch) && typeof hatch[0] === 'string') {
    const parts = hatch[0].split('/');
    return {
      dir: parts.length > 1 ? parts.slice(0, -1).join('/') : '.',
      key: '[tool.hatch.build.targets.wheel].packages',
    };
  }
  const poetry = at(root, 'tool', 'poetry', 'packages');
  if (Array.isArray(poetry) && isTable(poetry[0])) {
    return { dir: typeof poetry[0].from === 'string' ? poetry[0].from : '.', key: '[tool.poetry].packages' };
  }
  const pdm = at(root, 'tool', 'pdm', 'build', 'package-dir');
  if (typeof pdm === 'string') return { dir: pdm, key: '[tool.pdm.build].package-dir' };
  return null;
}

export function readPyproject(reader: RepoReader): Pyproject | null {
  const root = readToml(reader, PYPROJECT, 'dependencies', 'bad_project_file');
  if (root === null) return null;
  const project = table(root.project, '[project]');
  const buildSystem = table(root['build-system'], '[build-system]');
  const name = project.name === undefined ? null : project.name;
  if (name !== null && typeof name !== 'string') bad('[project].name', 'a string', name);
  const dynamic =
    project.dynamic === undefined ? [] : stringList(project.dynamic, '[project].dynamic').map((d) => d.text);
  const optional = new Map<string, ListedRequirement[]>();
  for (const [extra, list] of Object.entries(
    table(project['optional-dependencies'], '[project.optional-dependencies]'),
  )) {
    optional.set(extra, stringList(list, `[project.optional-dependencies].${extra}`));
  }
  const backend = buildSystem['build-backend'];
  if (backend !== undefined && typeof backend !== 'string')
    bad('[build-system].build-backend', 'a string', backend);
  return {
    hasProject: root.project !== undefined,
    hasBuildSystem: root['build-system'] !== undefined,
    name,
    dynamic,
    dependencies:
      project.dependencies === undefined ? null : stringList(project.dependencies, '[project].dependencies'),
    optional,
    groups: Object.keys(table(root['dependency-groups'], '[dependency-groups]')),
    buildBackend: backend ?? null,
    buildRequires:
      buildSystem.requires === undefined ? null : stringList(buildSystem.requires, '[build-system].requires'),
    packageDir: packageDirOf(root),
    requiresPython: typeof project['requires-python'] === 'string' ? project['requires-python'] : null,
    classifiers: Array.isArray(project.classifiers)
      ? project.classifiers.filter((c): c is string => typeof c === 'string')
      : [],
    table: root,
  };
}

/** A dependency group's requirements with its includes resolved (PEP 735); a cycle is an error. */
/**
 * Groups include each other: the walk is bounded by the input, not by how often a group is named
 * (each group resolved once, an entry listed once, a chain at most MAX_GROUP_DEPTH deep).
 */
const MAX_GROUP_DEPTH = 64;

export function resolveGroup(
  pyproject: Pyproject,
  group: string,
  stack: string[] = [],
  resolved = new Map<string, ListedRequirement[]>(),
): ListedRequirement[] {
  const groups = table(pyproject.table['dependency-groups'], '[dependency-groups]');
  const wanted = normalizeName(group);
  const done = resolved.get(wanted);
  if (done) return done;
  const actual = Object.keys(groups).find((name) => normalizeName(name) === wanted);
  const key = `[dependency-groups].${actual ?? group}`;
  if (actual === undefined) {
    const names = Object.keys(groups).join(', ') || 'none';
    const last = stack[stack.length - 1];
    throw new EnvPlanError('bad_project_file', `${PYPROJECT}: ${key} does not exist (groups: ${names})`, {
      file: PYPROJECT,
      key: last === undefined ? key : `[dependency-groups].${last}`,
      expected: 'an existing dependency group',
    });
  }
  checkGroupStack(stack, actual, key);
  const entries = groups[actual];
  if (!Array.isArray(entries)) bad(key, 'a list', entries);
  const out = new Map<string, ListedRequirement>();
  for (const entry of entries as unknown[]) {
    if (typeof entry === 'string')
      out.set(`${PYPROJECT} ${key}\0${entry}`, { text: entry, from: `${PYPROJECT} ${key}` });
    else if (
      isTable(entry) &&
      typeof entry['include-group'] === 'string' &&
      Object.keys(entry).length === 1
    ) {
      for (const listed of resolveGroup(pyproject, entry['include-group'], [...stack, actual], resolved))
        out.set(`${listed.from}\0${listed.text}`, listed);
    } else bad(key, 'a list of requirement strings and {include-group = "name"} tables', entry);
  }
  const list = [...out.values()];
  resolved.set(wanted, list);
  return list;
}

/** A group that includes itself, or a chain of includes deeper than MAX_GROUP_DEPTH, is refused. */
function checkGroupStack(stack: string[], actual: string, key: string): void {
  const wanted = normalizeName(actual);
  if (stack.map(normalizeName).includes(wanted)) {
    throw new EnvPlanError(
      'bad_project_file',
      `${PYPROJECT}: [dependency-groups] include cycle: ${[...stack, actual].join(' → ')}`,
      { file: PYPROJECT, key, expected: 'groups that do not include themselves' },
    );
  }
  if (stack.length >= MAX_GROUP_DEPTH)
    throw new EnvPlanError(
      'bad_project_file',
      `${PYPROJECT}: [dependency-groups] include-group chain deeper than ${MAX_GROUP_DEPTH} groups (${stack[0]} → … → ${actual})`,
      { file: PYPROJECT, key, expected: `include-group chains of at most ${MAX_GROUP_DEPTH} groups` },
    );
}
