// planEnvironment: what a project's sandbox environment holds, decided from its files alone (no
// build, no network, nothing of the repository run). In this order: the recipe
// (`.piper/sandbox.toml`, which overrides the choices); the Python (python-choice.ts); the project
// (name, build backend, layout); runtime dependencies ([project].dependencies, else setup.cfg
// install_requires, else Poetry's; a runtime requirements file); every test-dependency
// declaration, as a union (test-sources.ts); [build-system].requires; the recipe's requirements;
// what the tests need that nothing declared (infer.ts); then tooling from development lists is
// skipped (tooling.ts), constraints narrow, and a lockfile pins (lockfile.ts). Every choice is a
// sentence in `decisions`, every file read an entry of `inputs`.
import { readPytestConfig } from './infer/pytest-config.js';
import { pytestFacts } from './infer/pytest-plugins.js';
import { detectLayout, type Layout } from './deps/layout.js';
import { normalizeName } from './read/normalize.js';
import { inferFromTests } from './infer/infer.js';
import { ProgramScan } from './infer/programs.js';
import { applyLockfile } from './deps/lockfile.js';
import type { SandboxPython } from './read/marker-env.js';
import { Planner, projectExtras } from './planner.js';
import { readPoetry, type PoetrySections } from './deps/poetry.js';
import { readPyproject, PYPROJECT, type Pyproject } from './deps/pyproject.js';
import { choosePython, type RequiresPython } from './python-choice.js';
import { loadRecipe, recipeFindLinks, RECIPE_PATH, type Recipe } from './recipe.js';
import { redactUrl } from './read/redact.js';
import { setupPyPythonRequires } from './read/setup-py-python.js';
import { RepoReader } from './read/repo-reader.js';
import { requirementFileNames } from './deps/requirement-file-names.js';
import { readRequirementsFiles } from './deps/requirements-file.js';
import { readSetupCfg, SETUP_CFG, type SetupCfg } from './deps/setup-cfg.js';
import { addTestSources } from './tests/test-sources.js';
import { skipTooling } from './infer/tooling.js';
import { detectTestCommand } from './tests/test-command.js';
import { addTestCommandNeeds } from './tests/test-programs.js';
import { workflowAptInstalls } from './tests/ci-workflow.js';
import { EnvPlanSchema, type EnvPlan } from './types.js';
import { detectVcsUse } from './deps/vcs-use.js';
import { addRepoIndexes } from './indexes/repo-indexes.js';

export interface PlanOptions {
  /** The sandbox's Python when the recipe does not choose a Debian release (default: by requires-python). */
  python?: SandboxPython;
}

const LEGACY_BACKEND = 'setuptools.build_meta:__legacy__';
const LEGACY_BUILD_REQUIRES = ['setuptools>=40.8.0'];

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

function requiresPython(
  pyproject: Pyproject | null,
  setupCfg: SetupCfg | null,
  poetry: PoetrySections | null,
  setupPy: string | null,
): RequiresPython | null {
  if (pyproject?.requiresPython)
    return { specifier: pyproject.requiresPython, from: `${PYPROJECT} [project].requires-python` };
  if (setupCfg?.pythonRequires)
    return { specifier: setupCfg.pythonRequires, from: `${SETUP_CFG} [options].python_requires` };
  if (poetry?.python)
    return { specifier: poetry.python, from: `${PYPROJECT} [tool.poetry.dependencies].python` };
  const fromSetupPy = setupPy === null ? null : setupPyPythonRequires(setupPy);
  if (fromSetupPy) return { specifier: fromSetupPy, from: 'setup.py python_requires (as text)' };
  return null;
}

interface Project {
  name: string | null;
  installable: boolean;
  buildBackend: string | null;
  buildRequires: string[];
  layout: Layout;
}

function describeProject(
  reader: RepoReader,
  pyproject: Pyproject | null,
  setupCfg: SetupCfg | null,
  poetryName: string | null,
  decisions: string[],
): Project {
  const hasSetupPy = reader.read('setup.py', 'dependencies') !== null;
  const rawName = pyproject?.name ?? setupCfg?.name ?? poetryName;
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
  return { name, installable, buildBackend, buildRequires, layout };
}

/**
 * What a build backend needs that its project does not declare: hatchling's editable build asks
 * for `editables`, which --no-build-isolation does not install (iniconfig); a version from git
 * needs its tool even when only its configuration names it (the version itself is read on the
 * host at build time: runtime/env/plan/vcs-version.ts).
 */
function addBuildNeeds(planner: Planner, reader: RepoReader, buildBackend: string | null): void {
  if (buildBackend === 'hatchling.build')
    planner.addListed([{ text: 'editables', from: 'hatchling.build editable builds' }], 'build');
  const vcs = detectVcsUse(reader);
  if (!vcs) return;
  planner.decisions.push(
    `version from git (${vcs.tool}: ${vcs.why}): read on the host when the image is built`,
  );
  if (!vcs.declared)
    planner.addListed([{ text: vcs.tool, from: `${vcs.why} (a version from git)` }], 'build');
}

interface Sources {
  reader: RepoReader;
  pyproject: Pyproject | null;
  setupCfg: SetupCfg | null;
  poetry: PoetrySections | null;
  recipe: Recipe;
  project: Project;
}

/** Runtime, test and build declarations, then what the tests need; tooling skipped last. */
function addDetected(planner: Planner, src: Sources): void {
  const { reader, pyproject, setupCfg, poetry, project } = src;
  if (pyproject?.dependencies) planner.addListed(pyproject.dependencies, 'runtime');
  else if (setupCfg?.installRequires.length) planner.addListed(setupCfg.installRequires, 'runtime');
  else if (poetry?.runtime.length) planner.addLenient(poetry.runtime, 'runtime');
  if (pyproject?.dynamic.includes('dependencies') && !pyproject.dependencies) {
    planner.decisions.push(`${PYPROJECT}: dependencies are dynamic; they come in with the editable install`);
  }
  const files = requirementFileNames(reader);
  if (files.runtime) {
    planner.decisions.push(`${files.runtime}: runtime requirements`);
    planner.addFiles(readRequirementsFiles(reader, files.runtime), 'runtime');
  }
  const extras = projectExtras(pyproject, setupCfg);
  addTestSources(planner, { reader, pyproject, poetry, extras, recipe: src.recipe, files });
  if (project.installable) {
    const listed =
      pyproject?.buildRequires ??
      LEGACY_BUILD_REQUIRES.map((text) => ({
        text,
        from: 'default build requirements (no [build-system].requires)',
      }));
    planner.addListed(listed, 'build');
    addBuildNeeds(planner, reader, project.buildBackend);
  }
}

function projectModules(pyproject: Pyproject | null, name: string | null): string[] {
  const flit = pyproject?.table.tool as { flit?: { module?: { name?: unknown } } } | undefined;
  const flitName = flit?.flit?.module?.name;
  return [name, typeof flitName === 'string' ? flitName : null].filter((n): n is string => n !== null);
}

/**
 * What the tests need that nothing declared, then tooling the tests do not import skipped. Returns
 * the apt list: the recipe's, then the packages of the programs the tests run and of CI's installs.
 */
function inferAndClassify(planner: Planner, src: Sources): string[] {
  const programs = new ProgramScan();
  const { pyproject, setupCfg, project } = src;
  // The import root relative to the repository (/work → '.', /work/lib → 'lib'): its modules are the project's.
  const importRoot = project.layout.importRoot.replace(/^\/work\/?/, '') || '.';
  const packageDirs = [pyproject?.packageDir?.dir, setupCfg?.packageDir?.dir].filter((d): d is string => !!d);
  const imported = inferFromTests(planner, {
    reader: src.reader,
    pyproject: pyproject?.table ?? null,
    projectDirs: [importRoot, ...packageDirs],
    projectModules: projectModules(pyproject, project.name),
    programs,
  });
  skipTooling(planner, imported);
  // A reader of its own, as the test command's: what CI installs reaches the key through the apt
  // list, not the workflow file, so an edit to the workflow that installs nothing new builds nothing.
  programs.readCi(workflowAptInstalls(new RepoReader(src.reader.root)));
  return programs.withPackages(src.recipe.apt ?? [], planner.decisions);
}

/** Local find-links directories: their wheels are inputs (name, size, sha256 in the cache key). */
function readWheelhouses(reader: RepoReader, findLinks: readonly string[]): void {
  for (const dir of findLinks) {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(dir)) continue;
    for (const entry of reader.list(dir)) {
      if (reader.isFile(`${dir}/${entry}`)) reader.read(`${dir}/${entry}`, 'wheelhouse');
    }
  }
}

/** The plan's account of the project itself. */
function projectFacts(project: ReturnType<typeof describeProject>): EnvPlan['project'] {
  return {
    name: project.name,
    installable: project.installable,
    layout: project.layout.layout,
    importRoot: project.layout.importRoot,
    buildBackend: project.buildBackend,
    buildRequires: project.buildRequires,
  };
}

export function planEnvironment(repoRoot: string, opts: PlanOptions = {}): EnvPlan {
  const reader = new RepoReader(repoRoot);
  const decisions: string[] = [];
  const loaded = loadRecipe(reader);
  const recipe: Recipe = loaded?.recipe ?? {};
  if (loaded) decisions.push(`recipe ${RECIPE_PATH} read`);
  const recipeLinks = recipeFindLinks(recipe, reader);
  const pyproject = readPyproject(reader);
  const setupCfg = readSetupCfg(reader);
  const poetry = pyproject ? readPoetry(pyproject.table) : null;
  const classifiers = pyproject?.classifiers.length ? pyproject.classifiers : (setupCfg?.classifiers ?? []);
  const setupPy = reader.read('setup.py', 'dependencies')?.toString('utf8') ?? null;
  const requires = requiresPython(pyproject, setupCfg, poetry, setupPy);
  const choice = choosePython(recipe, opts.python, requires, classifiers);
  decisions.push(choice.decision);
  const project = describeProject(reader, pyproject, setupCfg, poetry?.name ?? null, decisions);
  const planner = new Planner(
    decisions,
    choice.python,
    project.name,
    project.installable,
    projectExtras(pyproject, setupCfg),
  );
  const detect = recipe.detect !== false;
  const sources = { reader, pyproject, setupCfg, poetry, recipe, project };
  if (detect) addDetected(planner, sources);
  else decisions.push(`detection off (${RECIPE_PATH} detect = false): only the recipe's requirements`);
  (recipe.requirements ?? []).forEach((text, index) => {
    planner.addListed([{ text, from: `${RECIPE_PATH} requirements[${index}]` }], 'recipe');
  });
  const apt = detect ? inferAndClassify(planner, sources) : (recipe.apt ?? []);
  const test = detectTestCommand(repoRoot, recipe.test, decisions);
  if (detect) addTestCommandNeeds(planner, test.command, test.from);
  planner.applyConstraints();
  const locked = applyLockfile(planner, reader, choice.python, detect);
  const pip = pipOptions(planner, recipe, recipeLinks);
  addRepoIndexes(pip, reader, pyproject?.table ?? null, planner.decisions);
  readWheelhouses(reader, pip.findLinks);
  return EnvPlanSchema.parse({
    python: choice.python,
    debian: choice.debian,
    project: projectFacts(project),
    requirements: planner.set.planned(),
    // A file included twice (runtime, then from the test file) would list its skips twice.
    skipped: [...new Map(planner.set.skipped.map((s) => [`${s.from}\0${s.line}\0${s.reason}`, s])).values()],
    ...(locked ? { locked } : {}),
    decisions: [...decisions, ...reader.notes, ...planner.set.decisions],
    pip,
    apt,
    setup: recipe.setup ?? [],
    testCommand: test.command,
    testCommandFrom: test.from,
    testEnv: test.env,
    pytest: pytestFacts(readPytestConfig(reader, pyproject?.table ?? null)),
    ...(recipe.strict ? { strict: true } : {}),
    ...(recipe.sources ? { sources: recipe.sources } : {}),
    recipe: loaded ? { path: RECIPE_PATH, sha256: loaded.sha256 } : null,
    inputs: reader.recorded(),
  });
}
