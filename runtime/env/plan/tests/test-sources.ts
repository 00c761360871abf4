// Every place a project declares its test dependencies, read as a union (not the first found):
// the project's extras and PEP 735 groups, Poetry groups, PDM dev groups and Hatch environments
// whose names pass the test-name rule (test-names.ts); test/dev-named requirements files; tox's
// base test environment (deps, extras, dependency groups) wherever it is declared; noxfile.py
// test sessions' installs. The recipe's `extras` / `groups` replace the name rule for those two.
// Each source adds a sentence to the decisions naming what it read and what it did not.
import { EnvPlanError } from '../errors.js';
import { readHatchEnvs } from '../deps/hatch.js';
import { normalizeName } from '../read/normalize.js';
import { readNoxfile } from './nox.js';
import { readPdmDevGroups } from '../deps/pdm.js';
import type { Planner, ProjectExtras } from '../planner.js';
import type { PoetrySections } from '../deps/poetry.js';
import { resolveGroup, PYPROJECT, type Pyproject } from '../deps/pyproject.js';
import { RECIPE_KEYS, RECIPE_PATH, type Recipe } from '../recipe.js';
import type { RepoReader } from '../read/repo-reader.js';
import type { RequirementFileNames } from '../deps/requirement-file-names.js';
import { readRequirementsFiles } from '../deps/requirements-file.js';
import { isTestName, TEST_NAME_RULE } from './test-names.js';
import { readToxTestenvs } from './tox.js';
import { appendAll } from '../../../text/append.js';

export interface TestSourceContext {
  reader: RepoReader;
  pyproject: Pyproject | null;
  poetry: PoetrySections | null;
  extras: ProjectExtras;
  recipe: Recipe;
  files: RequirementFileNames;
}

function quoted(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

function recipeError(key: string, problem: string): EnvPlanError {
  const top = key.replace(/\[.*$/, '') as keyof typeof RECIPE_KEYS;
  return new EnvPlanError(
    'bad_recipe',
    `${RECIPE_PATH}: key "${key}": ${problem} (expected ${RECIPE_KEYS[top]})`,
    {
      file: RECIPE_PATH,
      key,
      expected: RECIPE_KEYS[top],
    },
  );
}

function chooseExtras(planner: Planner, extras: ProjectExtras, recipe: Recipe): void {
  if (recipe.extras !== undefined) {
    recipe.extras.forEach((extra, index) => {
      if (!extras.byName.has(normalizeName(extra))) {
        const known = [...extras.byName.values()].map((e) => e.name).join(', ') || 'none';
        throw recipeError(
          `extras[${index}]`,
          `the project declares no extra "${extra}" (declared: ${known})`,
        );
      }
    });
    planner.decisions.push(
      recipe.extras.length
        ? `${extras.source} ${quoted(recipe.extras)} chosen by ${RECIPE_PATH} extras`
        : `no extras: ${RECIPE_PATH} extras = []`,
    );
    for (const extra of recipe.extras) {
      planner.addExtra(extra, 'test', `${RECIPE_PATH} extras`);
      planner.markChosenByRecipe(planner.extraList(extra));
    }
    return;
  }
  const all = [...extras.byName.values()].map((e) => e.name);
  const chosen = all.filter(isTestName);
  if (chosen.length === 0) return;
  const others = all.filter((name) => !chosen.includes(name));
  planner.decisions.push(
    `${extras.source} ${quoted(chosen)} read (${TEST_NAME_RULE})${others.length ? `; not ${quoted(others)}` : ''}`,
  );
  for (const extra of chosen) planner.addExtra(extra, 'test', extras.source);
}

function chooseGroups(
  planner: Planner,
  pyproject: Pyproject | null,
  recipe: Recipe,
  fromTox: string[],
): void {
  const groups = pyproject?.groups ?? [];
  const find = (name: string): string | undefined =>
    groups.find((g) => normalizeName(g) === normalizeName(name));
  let chosen: string[];
  if (recipe.groups !== undefined) {
    chosen = recipe.groups.map((group, index) => {
      const actual = find(group);
      if (actual === undefined)
        throw recipeError(
          `groups[${index}]`,
          `${PYPROJECT} declares no dependency group "${group}" (declared: ${groups.join(', ') || 'none'})`,
        );
      return actual;
    });
    planner.decisions.push(
      chosen.length
        ? `dependency-groups ${quoted(chosen)} chosen by ${RECIPE_PATH} groups`
        : `no dependency groups: ${RECIPE_PATH} groups = []`,
    );
  } else {
    const named = groups.filter(isTestName);
    const toxOnly = fromTox.map(find).filter((g): g is string => g !== undefined && !named.includes(g));
    chosen = [...named, ...toxOnly];
    const others = groups.filter((g) => !chosen.includes(g));
    if (chosen.length)
      planner.decisions.push(
        `dependency-groups ${quoted(chosen)} read (${TEST_NAME_RULE}${toxOnly.length ? `, or installed by tox` : ''})${others.length ? `; not ${quoted(others)}` : ''}`,
      );
  }
  for (const group of chosen) {
    const listed = resolveGroup(pyproject as Pyproject, group);
    planner.addListed(listed, 'test');
    if (recipe.groups !== undefined) planner.markChosenByRecipe(listed);
  }
}

function sentence(what: string, read: string[], notRead: string[]): string {
  return `${what} ${read.join(', ')} read (${TEST_NAME_RULE})${notRead.length ? `; not ${notRead.join(', ')}` : ''}`;
}

function addToolSections(planner: Planner, ctx: TestSourceContext): void {
  const { poetry } = ctx;
  if (poetry && (poetry.read.length || poetry.notRead.length)) {
    if (poetry.read.length) planner.decisions.push(sentence('Poetry', poetry.read, poetry.notRead));
    planner.addLenient(poetry.test, 'test');
  }
  appendAll(planner.set.skipped, poetry?.skipped ?? []);
  const table = ctx.pyproject?.table ?? null;
  const pdm = table ? readPdmDevGroups(table) : null;
  if (pdm) {
    if (pdm.read.length) planner.decisions.push(sentence('PDM', pdm.read, pdm.notRead));
    planner.addLenient(pdm.listed, 'test');
    planner.addPipLines(ctx.reader, PYPROJECT, pdm.pipLines, 'test');
    appendAll(planner.set.skipped, pdm.skipped);
  }
  const hatch = table ? readHatchEnvs(table) : null;
  if (hatch) {
    if (hatch.read.length) planner.decisions.push(sentence('Hatch', hatch.read, hatch.notRead));
    planner.addLenient(hatch.listed, 'test');
    for (const { extra, from } of hatch.features) planner.addExtra(extra, 'test', from);
    appendAll(planner.set.skipped, hatch.skipped);
  }
}

function addFilesAndRunners(
  planner: Planner,
  ctx: TestSourceContext,
  tox: ReturnType<typeof readToxTestenvs>,
): void {
  const { reader, files } = ctx;
  if (files.test.length) {
    planner.decisions.push(`${files.test.join(', ')}: test requirements (${TEST_NAME_RULE})`);
    for (const path of files.test) planner.addFiles(readRequirementsFiles(reader, path), 'test');
  }
  for (const env of tox) {
    planner.decisions.push(`${env.source}: tox's test environment read (deps, extras, dependency groups)`);
    planner.addPipLines(reader, env.file, env.deps, 'test');
    for (const { extra, from } of env.extras) planner.addExtra(extra, 'test', from);
    appendAll(planner.set.skipped, env.skipped);
  }
  const nox = readNoxfile(reader);
  if (nox) {
    const not = nox.sessionsNotRead.length ? `; not ${quoted(nox.sessionsNotRead)}` : '';
    planner.decisions.push(
      `noxfile.py: session.install literals read (sessions ${quoted(nox.sessionsRead) || 'none'} ${TEST_NAME_RULE}, and helpers)${not}; never run`,
    );
    planner.addPipLines(reader, 'noxfile.py', nox.lines, 'test');
    appendAll(planner.set.skipped, nox.skipped);
  }
}

export function addTestSources(planner: Planner, ctx: TestSourceContext): void {
  const tox = readToxTestenvs(ctx.reader, ctx.pyproject?.table ?? null);
  chooseExtras(planner, ctx.extras, ctx.recipe);
  chooseGroups(
    planner,
    ctx.pyproject,
    ctx.recipe,
    tox.flatMap((env) => env.groups.map((g) => g.group)),
  );
  addToolSections(planner, ctx);
  addFilesAndRunners(planner, ctx, tox);
  // A file not read for its name may still have been included (`-r`) by another source.
  const included = new Set(planner.pipFiles.flatMap((files) => files.files));
  for (const { path, why } of ctx.files.ignored) {
    planner.decisions.push(
      included.has(path) ? `${path}: read where it is included` : `${path}: not read (${why})`,
    );
  }
}
