// What the tests need that no declaration names, found from the tests themselves: the plugins the
// pytest configuration uses (pytest-plugins.ts), and the distributions behind the test tree's
// imports (imports.ts over test-tree.ts's files, resolved by import-map.ts). An import is left
// alone when it is the standard library, `__future__`, local (the project, the test tree, the
// root, pytest's pythonpath) or already declared; one no map resolves is recorded as skipped.
// Returns the declared distributions the tests import, so tooling they import is kept.
import { distributionForModule, moduleKey, modulesOfDistribution } from './import-map.js';
import { importsOf, type FoundImport } from './imports.js';
import { normalizeName } from './normalize.js';
import type { Planner } from './planner.js';
import { readPytestConfig, values } from './pytest-config.js';
import { pluginNeeds } from './pytest-plugins.js';
import type { RepoReader } from './repo-reader.js';
import { isStdlibModule } from './stdlib.js';
import { findTestTree, MAX_TEST_FILE_BYTES, MAX_TEST_FILES } from './test-tree.js';
import type { TomlTable } from './toml.js';

export interface InferContext {
  reader: RepoReader;
  pyproject: TomlTable | null;
  /** Repo-relative directories whose modules are the project's (import root, package dir). */
  projectDirs: string[];
  /** The project's own module names (its normalized name, a flit module name). */
  projectModules: string[];
}

interface Use {
  name: string;
  module: string;
  files: string[];
  optional: boolean;
}

class Uses {
  readonly byKey = new Map<string, Use>();
  add(key: string, name: string, module: string, file: string, optional: boolean): void {
    const use = this.byKey.get(key);
    if (!use) this.byKey.set(key, { name, module, files: [file], optional });
    else {
      if (!use.files.includes(file)) use.files.push(file);
      use.optional &&= optional;
    }
  }
}

function described(use: Use): string {
  const more = use.files.length > 1 ? ` (+${use.files.length - 1} files)` : '';
  return `${use.files[0]} imports ${use.module}${more}`;
}

/** moduleKey → normalized name of every declared distribution. */
function declaredModules(planner: Planner): Map<string, string> {
  const out = new Map<string, string>();
  for (const view of planner.set.views()) {
    for (const module of modulesOfDistribution(view.name))
      if (!out.has(module)) out.set(module, view.normalized);
  }
  return out;
}

export function inferFromTests(planner: Planner, ctx: InferContext): Map<string, string> {
  const config = readPytestConfig(ctx.reader, ctx.pyproject);
  const declared = declaredModules(planner);
  const imported = new Map<string, string>();
  const found = new Uses();
  const unresolved = new Uses();
  const isLocal = new Set(ctx.projectModules.map(moduleKey));

  const consider = (imp: Pick<FoundImport, 'module' | 'dotted' | 'optional'>, file: string): void => {
    const key = moduleKey(imp.module);
    if (imp.module === '__future__' || isStdlibModule(imp.module) || isLocal.has(key)) return;
    const match = declared.get(moduleKey(imp.dotted)) ?? declared.get(key);
    const dist = match ? null : distributionForModule(imp.module, imp.dotted);
    const known = match ?? (dist !== null && planner.set.has(dist) ? normalizeName(dist) : null);
    if (known) {
      if (!imported.has(known)) imported.set(known, `${file} imports ${imp.module}`);
    } else if (dist) found.add(normalizeName(dist), dist, imp.module, file, imp.optional);
    else unresolved.add(key, imp.module, imp.module, file, imp.optional);
  };

  const testpaths = config ? values(config, 'testpaths') : [];
  const pythonpath = config ? values(config, 'pythonpath') : [];
  const tree = findTestTree(ctx.reader, testpaths.length ? testpaths : null, [
    ...ctx.projectDirs,
    ...pythonpath,
  ]);
  for (const module of tree.local) isLocal.add(module);
  let fromConfig = 0;
  for (const need of config ? pluginNeeds(config) : []) {
    let text = need.requirement;
    if (need.module !== undefined) {
      const module = need.module.split('.')[0] as string;
      if (isStdlibModule(module) || isLocal.has(moduleKey(module))) continue;
      const match = declared.get(moduleKey(need.module)) ?? declared.get(moduleKey(module));
      text = match ?? distributionForModule(module, need.module) ?? undefined;
      if (text === undefined) {
        planner.set.skipped.push({
          line: need.module,
          from: need.from,
          reason: `a pytest plugin module; no distribution is known for it`,
        });
        continue;
      }
    }
    const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(text ?? '')?.[0];
    if (text && name && !planner.set.has(name) && planner.addInferred(text, need.from, false)) fromConfig++;
  }
  let read = 0;
  for (const file of tree.files) {
    const text = ctx.reader.peekText(file, MAX_TEST_FILE_BYTES);
    if (text === null) continue;
    read++;
    for (const imp of importsOf(text)) consider(imp, file);
  }
  for (const use of found.byKey.values()) planner.addInferred(use.name, described(use), use.optional);
  for (const use of unresolved.byKey.values()) {
    const more = use.files.length > 1 ? ` (+${use.files.length - 1} files)` : '';
    planner.set.skipped.push({
      line: use.module,
      from: use.files[0] as string,
      reason: `imported by ${use.files[0]}${more}; no distribution is known for it`,
    });
  }
  const where = [
    ...tree.roots.map((r) => (tree.files.some((f) => f.startsWith(`${r}/`)) ? `${r}/` : r)),
    'conftest.py files',
    'test_*.py at the root',
  ];
  planner.decisions.push(
    read
      ? `tests: ${read} file(s) read for imports (${where.join(', ')}; imports inside functions count): ${found.byKey.size} distribution(s) inferred, ${unresolved.byKey.size} import(s) unresolved`
      : 'tests: no test file found (testpaths, tests/, test/, testing/, conftest.py, test_*.py): nothing inferred from imports',
  );
  if (config)
    planner.decisions.push(
      `pytest configuration ${config.source}: ${fromConfig} plugin(s) inferred from its options`,
    );
  if (tree.truncated)
    planner.decisions.push(
      `tests: the walk stopped at its limits (${MAX_TEST_FILES} files, depth and entry caps); the rest was not read`,
    );
  return imported;
}
