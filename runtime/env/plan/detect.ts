// planEnvironment: what a project's sandbox environment holds, decided from its files alone (no
// build, no network). Sources, in this order: pyproject [project].dependencies; the
// project's extras and PEP 735 groups named test/tests/testing/dev (first found of each kind);
// requirements*.txt (runtime, and test/dev-named first); setup.cfg; tox.ini [testenv] only when
// nothing else gave test dependencies. `.piper/sandbox.toml` overrides the choices. Every choice
// is a sentence in `decisions`, every file read an entry of `inputs`.
import { EnvPlanError } from './errors.js';
import { detectLayout } from './layout.js';
import { DEBIAN_OF, PYTHON_OF, type SandboxPython } from './marker-env.js';
import { normalizeName } from './normalize.js';
import { Planner, projectExtras, type ProjectExtras } from './planner.js';
import { readPyproject, resolveGroup, PYPROJECT, type Pyproject } from './pyproject.js';
import { loadRecipe, recipeFindLinks, RECIPE_KEYS, RECIPE_PATH, type Recipe } from './recipe.js';
import { redactUrl } from './redact.js';
import { RepoReader } from './repo-reader.js';
import { requirementFileNames, TEST_NAMES } from './requirement-file-names.js';
import { readRequirementLines, readRequirementsFiles } from './requirements-file.js';
import { readSetupCfg, SETUP_CFG } from './setup-cfg.js';
import { readToxTestenv, TOX_INI } from './tox.js';
import { EnvPlanSchema, type EnvPlan } from './types.js';
import { detectVcsUse } from './vcs-use.js';

export interface PlanOptions {
  /** The sandbox's Python when the recipe does not choose a Debian release (default 3.13). */
  python?: SandboxPython;
}

const LEGACY_BACKEND = 'setuptools.build_meta:__legacy__';
const LEGACY_BUILD_REQUIRES = ['setuptools>=40.8.0'];
const LOCKFILES = ['uv.lock', 'poetry.lock', 'Pipfile.lock'];
const FIRST_OF = `first of ${TEST_NAMES.join(', ')}`;

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

function chooseRelease(
  recipe: Recipe,
  opts: PlanOptions,
  decisions: string[],
): { python: SandboxPython; debian: EnvPlan['debian'] } {
  if (recipe.debian) {
    const python = PYTHON_OF[recipe.debian];
    const over = opts.python && opts.python !== python ? ` (over the requested Python ${opts.python})` : '';
    decisions.push(`Debian ${recipe.debian}, Python ${python}: ${RECIPE_PATH} debian${over}`);
    return { python, debian: recipe.debian };
  }
  const python = opts.python ?? '3.13';
  decisions.push(
    `Debian ${DEBIAN_OF[python]}, Python ${python}: ${opts.python ? 'requested' : 'the default'}`,
  );
  return { python, debian: DEBIAN_OF[python] };
}

function chooseTestExtra(planner: Planner, extras: ProjectExtras, recipe: Recipe): boolean {
  if (recipe.extras !== undefined) {
    recipe.extras.forEach((extra, index) => {
      if (!extras.byName.has(normalizeName(extra))) {
        const known = [...extras.byName.values()].map((e) => e.name).join(', ') || 'none';
        throw recipeError(
          `extras[${index}]`,
          `the project declares no extra "${extra}" (declared: ${known})`,
        );
      }
      planner.addExtra(extra, 'test', `${RECIPE_PATH} extras`);
    });
    planner.decisions.push(
      recipe.extras.length
        ? `${extras.source} ${recipe.extras.map((e) => `"${e}"`).join(', ')} chosen by ${RECIPE_PATH} extras`
        : `no extras: ${RECIPE_PATH} extras = []`,
    );
    return recipe.extras.length > 0;
  }
  const name = TEST_NAMES.find((candidate) => extras.byName.has(candidate));
  if (name === undefined) return false;
  planner.decisions.push(`${extras.source} "${extras.byName.get(name)?.name}" chosen (${FIRST_OF})`);
  planner.addExtra(name, 'test', extras.source);
  return true;
}

function chooseTestGroups(planner: Planner, pyproject: Pyproject | null, recipe: Recipe): boolean {
  const groups = pyproject?.groups ?? [];
  const find = (name: string): string | undefined =>
    groups.find((group) => normalizeName(group) === normalizeName(name));
  let chosen: string[];
  if (recipe.groups !== undefined) {
    chosen = recipe.groups.map((group, index) => {
      const actual = find(group);
      if (actual === undefined) {
        throw recipeError(
          `groups[${index}]`,
          `${PYPROJECT} declares no dependency group "${group}" (declared: ${groups.join(', ') || 'none'})`,
        );
      }
      return actual;
    });
    planner.decisions.push(
      chosen.length
        ? `dependency-groups ${chosen.map((g) => `"${g}"`).join(', ')} chosen by ${RECIPE_PATH} groups`
        : `no dependency groups: ${RECIPE_PATH} groups = []`,
    );
  } else {
    const first = TEST_NAMES.map(find).find((group) => group !== undefined);
    chosen = first === undefined ? [] : [first];
    if (first !== undefined) planner.decisions.push(`dependency-groups "${first}" chosen (${FIRST_OF})`);
  }
  for (const group of chosen) planner.addListed(resolveGroup(pyproject as Pyproject, group), 'test');
  return chosen.length > 0;
}

/** The pip options of the recipe and of every requirements file read, the recipe's first. */
function pipOptions(planner: Planner, recipe: Recipe, recipeLinks: string[]): EnvPlan['pip'] {
  const pip: EnvPlan['pip'] = { indexUrl: null, extraIndexUrls: [], findLinks: [], fromFiles: [] };
  const note = (from: string): void => {
    if (!pip.fromFiles.includes(from)) pip.fromFiles.push(from);
  };
  if (recipe.index_url) {
    pip.indexUrl = recipe.index_url;
    note(`${RECIPE_PATH} index_url`);
  }
  for (const url of recipe.extra_index_urls ?? []) {
    if (!pip.extraIndexUrls.includes(url)) pip.extraIndexUrls.push(url);
    note(`${RECIPE_PATH} extra_index_urls`);
  }
  for (const dir of recipeLinks) {
    if (!pip.findLinks.includes(dir)) pip.findLinks.push(dir);
    note(`${RECIPE_PATH} find_links`);
  }
  for (const files of planner.pipFiles) {
    for (const option of files.indexUrl) {
      if (pip.indexUrl === null) {
        pip.indexUrl = option.value;
        note(option.from);
      } else if (option.value !== pip.indexUrl) {
        planner.decisions.push(
          `${option.from}: --index-url ${redactUrl(option.value)} ignored: ${redactUrl(pip.indexUrl)} came first`,
        );
      }
    }
    for (const option of files.extraIndexUrls) {
      if (!pip.extraIndexUrls.includes(option.value)) pip.extraIndexUrls.push(option.value);
      note(option.from);
    }
    for (const option of files.findLinks) {
      if (!pip.findLinks.includes(option.value)) pip.findLinks.push(option.value);
      note(option.from);
    }
  }
  if (pip.indexUrl) planner.decisions.push(`index URL ${redactUrl(pip.indexUrl)} (${pip.fromFiles[0]})`);
  return pip;
}

export function planEnvironment(repoRoot: string, opts: PlanOptions = {}): EnvPlan {
  const reader = new RepoReader(repoRoot);
  const decisions: string[] = [];
  const loaded = loadRecipe(reader);
  const recipe: Recipe = loaded?.recipe ?? {};
  if (loaded) decisions.push(`recipe ${RECIPE_PATH} read`);
  const { python, debian } = chooseRelease(recipe, opts, decisions);
  const recipeLinks = recipeFindLinks(recipe, reader);

  const pyproject = readPyproject(reader);
  const setupCfg = readSetupCfg(reader);
  const hasSetupPy = reader.read('setup.py', 'dependencies') !== null;
  const rawName = pyproject?.name ?? setupCfg?.name ?? null;
  const name = rawName === null ? null : normalizeName(rawName);
  const installable = Boolean(
    pyproject?.hasProject || pyproject?.hasBuildSystem || hasSetupPy || setupCfg?.declaresProject,
  );
  const buildBackend = installable ? (pyproject?.buildBackend ?? LEGACY_BACKEND) : null;
  const buildRequires = installable
    ? (pyproject?.buildRequires?.map((r) => r.text) ?? LEGACY_BUILD_REQUIRES)
    : [];
  if (installable) {
    const by = pyproject?.buildBackend
      ? `${PYPROJECT} [build-system].build-backend`
      : 'the default for a project without one (PEP 517)';
    decisions.push(`project ${name ?? '(unnamed)'} is installable; build backend ${buildBackend}: ${by}`);
  } else
    decisions.push(
      'no project metadata (pyproject [project] or [build-system], setup.py, setup.cfg): not installed',
    );
  if (hasSetupPy)
    decisions.push('setup.py: not executed; what it requires comes in with the editable install');
  const packageDir = pyproject?.packageDir
    ? { ...pyproject.packageDir, file: PYPROJECT }
    : setupCfg?.packageDir
      ? { ...setupCfg.packageDir, file: SETUP_CFG }
      : null;
  const layout = detectLayout(reader, packageDir);
  decisions.push(layout.decision);
  for (const lockfile of LOCKFILES) {
    if (reader.read(lockfile, 'lockfile'))
      decisions.push(`${lockfile}: not read for requirements; its bytes enter the cache key`);
  }

  const extras = projectExtras(pyproject, setupCfg);
  const planner = new Planner(decisions, python, name, installable, extras);
  if (recipe.detect === false) {
    decisions.push(`detection off (${RECIPE_PATH} detect = false): only the recipe's requirements`);
  } else {
    if (pyproject?.dependencies) planner.addListed(pyproject.dependencies, 'runtime');
    else if (setupCfg?.installRequires.length) planner.addListed(setupCfg.installRequires, 'runtime');
    if (pyproject?.dynamic.includes('dependencies') && !pyproject.dependencies) {
      decisions.push(`${PYPROJECT}: dependencies are dynamic; they come in with the editable install`);
    }
    const files = requirementFileNames(reader);
    if (files.runtime) {
      decisions.push(`${files.runtime}: runtime requirements`);
      planner.addFiles(readRequirementsFiles(reader, files.runtime), 'runtime');
    }
    const extraChosen = chooseTestExtra(planner, extras, recipe);
    const groupChosen = chooseTestGroups(planner, pyproject, recipe);
    if (files.test) {
      decisions.push(`${files.test.path}: test requirements (${FIRST_OF})`);
      planner.addFiles(readRequirementsFiles(reader, files.test.path), 'test');
    }
    for (const { path, why } of files.ignored) decisions.push(`${path}: not read (${why})`);
    if (!extraChosen && !groupChosen && !files.test && reader.isFile(TOX_INI)) {
      const tox = readToxTestenv(reader);
      if (tox && (tox.deps.length || tox.extras.length)) {
        decisions.push(
          `${TOX_INI} [testenv]: test requirements, as a last resort (no test extra, group or requirements file)`,
        );
        planner.addFiles(readRequirementLines(reader, TOX_INI, tox.deps), 'test');
        for (const extra of tox.extras) planner.addExtra(extra, 'test', `${TOX_INI} [testenv].extras`);
      }
      planner.set.skipped.push(...(tox?.skipped ?? []));
    }
    if (installable) {
      const listed =
        pyproject?.buildRequires ??
        LEGACY_BUILD_REQUIRES.map((text) => ({
          text,
          from: 'default build requirements (no [build-system].requires)',
        }));
      planner.addListed(listed, 'build');
      // [real-fixtures hook] hatchling's get_requires_for_build_editable asks for `editables`, which
      // --no-build-isolation does not install: without it the editable install fails (iniconfig).
      if (buildBackend === 'hatchling.build')
        planner.addListed([{ text: 'editables', from: 'hatchling.build editable builds' }], 'build');
      // [real-fixtures hook] a version from git: its tool is a build requirement even when only its
      // configuration names it; the version itself is read on the host at build time.
      const vcs = detectVcsUse(reader);
      if (vcs) {
        decisions.push(
          `version from git (${vcs.tool}: ${vcs.why}): read on the host when the image is built`,
        );
        if (!vcs.declared)
          planner.addListed([{ text: vcs.tool, from: `${vcs.why} (a version from git)` }], 'build');
      }
    }
  }
  (recipe.requirements ?? []).forEach((text, index) => {
    planner.addListed([{ text, from: `${RECIPE_PATH} requirements[${index}]` }], 'recipe');
  });
  planner.applyConstraints();
  const pip = pipOptions(planner, recipe, recipeLinks);
  for (const dir of pip.findLinks) {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(dir)) continue;
    for (const entry of reader.list(dir)) {
      if (reader.isFile(`${dir}/${entry}`)) reader.read(`${dir}/${entry}`, 'wheelhouse');
    }
  }

  return EnvPlanSchema.parse({
    python,
    debian,
    project: {
      name,
      installable,
      layout: layout.layout,
      importRoot: layout.importRoot,
      buildBackend,
      buildRequires,
    },
    requirements: planner.set.planned(),
    // A file included twice (runtime, then from the test file) would list its skips twice.
    skipped: [...new Map(planner.set.skipped.map((s) => [`${s.from}\0${s.line}\0${s.reason}`, s])).values()],
    decisions: [...decisions, ...planner.set.decisions],
    pip,
    apt: recipe.apt ?? [],
    setup: recipe.setup ?? [],
    testCommand: recipe.test ?? null,
    recipe: loaded ? { path: RECIPE_PATH, sha256: loaded.sha256 } : null,
    inputs: reader.recorded(),
  });
}
