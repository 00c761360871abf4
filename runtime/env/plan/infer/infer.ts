// What the tests need that no declaration names, found from the tests themselves: the plugins the
// pytest configuration uses (pytest-plugins.ts), and the distributions behind the test tree's
// imports (imports.ts over test-tree.ts's files, resolved by import-map.ts). An import is left
// alone when it is the standard library, `__future__`, local (the project, the test tree, the
// root, pytest's pythonpath) or already declared; one no map resolves is recorded as skipped.
// Returns the declared distributions the tests import, so tooling they import is kept.
import { distributionForModule, moduleKey, modulesOfDistribution } from './import-map.js';
import { importsOf, type FoundImport } from './imports.js';
import { normalizeName } from '../read/normalize.js';
import type { Planner } from '../planner.js';
import { readPytestConfig, values, type PytestConfig } from './pytest-config.js';
import type { ProgramScan } from './programs.js';
import { pluginNeeds } from './pytest-plugins.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isStdlibModule } from './stdlib.js';
import { findTestTree, MAX_TEST_FILE_BYTES, MAX_TEST_FILES, type TestTree } from '../tests/test-tree.js';
import type { TomlTable } from '../read/toml.js';

export interface InferContext {
  reader: RepoReader;
  pyproject: TomlTable | null;
  /** Repo-relative directories whose modules are the project's (import root, package dir). */
  projectDirs: string[];
  /** The project's own module names (its normalized name, a flit module name). */
  projectModules: string[];
  /** Reads the programs the test files run (programs.ts), from the same reads as the imports. */
  programs?: ProgramScan;
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

class Inference {
  readonly declared: Map<string, string>;
  /** Declared distributions a test imports: normalized name → `file imports module`. */
  readonly imported = new Map<string, string>();
  readonly found = new Uses();
  readonly unresolved = new Uses();
  readonly local: Set<string>;

  constructor(
    private readonly planner: Planner,
    projectModules: readonly string[],
  ) {
    this.declared = declaredModules(planner);
    this.local = new Set(projectModules.map(moduleKey));
  }

  private ignored(module: string): boolean {
    return module === '__future__' || isStdlibModule(module) || this.local.has(moduleKey(module));
  }

  /** A declared distribution providing the module, by name (normalized), or null. */
  private declaredFor(module: string, dotted: string): string | null {
    const match = this.declared.get(moduleKey(dotted)) ?? this.declared.get(moduleKey(module));
    if (match) return match;
    const dist = distributionForModule(module, dotted);
    return dist !== null && this.planner.set.has(dist) ? normalizeName(dist) : null;
  }

  consider(imp: FoundImport, file: string): void {
    if (this.ignored(imp.module)) return;
    const known = this.declaredFor(imp.module, imp.dotted);
    if (known) {
      if (!this.imported.has(known)) this.imported.set(known, `${file} imports ${imp.module}`);
      return;
    }
    const dist = distributionForModule(imp.module, imp.dotted);
    if (dist) this.found.add(normalizeName(dist), dist, imp.module, file, imp.optional);
    else this.unresolved.add(moduleKey(imp.module), imp.module, imp.module, file, imp.optional);
  }

  /** The pytest configuration's plugins; how many were new. */
  plugins(config: PytestConfig): number {
    let added = 0;
    for (const need of pluginNeeds(config)) {
      let text = need.requirement;
      if (need.module !== undefined) {
        const module = need.module.split('.')[0] as string;
        if (this.ignored(module)) continue;
        text =
          this.declaredFor(module, need.module) ?? distributionForModule(module, need.module) ?? undefined;
        if (text === undefined) {
          this.planner.set.skipped.push({
            line: need.module,
            from: need.from,
            reason: 'a pytest plugin module; no distribution is known for it',
          });
          continue;
        }
      }
      const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(text ?? '')?.[0];
      if (text && name && !this.planner.set.has(name) && this.planner.addInferred(text, need.from, false))
        added++;
    }
    return added;
  }

  /** Add what was found; unresolved imports become skipped entries. */
  finish(): void {
    for (const use of this.found.byKey.values())
      this.planner.addInferred(use.name, described(use), use.optional);
    for (const use of this.unresolved.byKey.values()) {
      const more = use.files.length > 1 ? ` (+${use.files.length - 1} files)` : '';
      this.planner.set.skipped.push({
        line: use.module,
        from: use.files[0] as string,
        reason: `imported by ${use.files[0]}${more}; no distribution is known for it`,
      });
    }
  }
}

function treeSentence(tree: TestTree, read: number, inference: Inference): string {
  if (read === 0)
    return 'tests: no test file found (testpaths, tests/, test/, testing/, conftest.py, test_*.py): nothing inferred from imports';
  const roots = tree.roots.map((r) => (tree.files.some((f) => f.startsWith(`${r}/`)) ? `${r}/` : r));
  const where = [...roots, 'conftest.py files', 'test_*.py at the root'].join(', ');
  return `tests: ${read} file(s) read for imports (${where}; imports inside functions count): ${inference.found.byKey.size} distribution(s) inferred, ${inference.unresolved.byKey.size} import(s) unresolved`;
}

export function inferFromTests(planner: Planner, ctx: InferContext): Map<string, string> {
  const config = readPytestConfig(ctx.reader, ctx.pyproject);
  const inference = new Inference(planner, ctx.projectModules);
  const testpaths = config ? values(config, 'testpaths') : [];
  const pythonpath = config ? values(config, 'pythonpath') : [];
  const tree = findTestTree(ctx.reader, testpaths.length ? testpaths : null, [
    ...ctx.projectDirs,
    ...pythonpath,
  ]);
  for (const module of tree.local) inference.local.add(module);
  const fromConfig = config ? inference.plugins(config) : 0;
  let read = 0;
  for (const file of tree.files) {
    const text = ctx.reader.peekText(file, MAX_TEST_FILE_BYTES);
    if (text === null) continue;
    read++;
    for (const imp of importsOf(text)) inference.consider(imp, file);
    ctx.programs?.read(text, file);
  }
  inference.finish();
  planner.decisions.push(treeSentence(tree, read, inference));
  if (config)
    planner.decisions.push(
      `pytest configuration ${config.source}: ${fromConfig} plugin(s) inferred from its options`,
    );
  if (tree.truncated)
    planner.decisions.push(
      `tests: the walk stopped at its limits (${MAX_TEST_FILES} files, depth and entry caps); the rest was not read`,
    );
  return inference.imported;
}
