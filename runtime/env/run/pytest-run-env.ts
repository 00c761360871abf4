// How pytest runs in a project environment: the variables every run_test sets, and the notes the
// run says them with (docs/environments.md "Plugins").
//
// - Plugin autoload off (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1), and `-p NAME` for each plugin whose
//   distribution the project names (declared, inferred from its tests or its pytest configuration,
//   relaxed): a plugin in the image that nobody asked for — one a Debian package or a pip
//   dependency pulled in — never loads into its tests. NAME is the entry point's name, not its
//   module: pytest's `-p` loads a named entry point even with autoload off, and registers it under
//   that name, so the project's own `-p no:NAME` still blocks it and `hasplugin("xdist")` still
//   answers as it would with autoload on.
// - `--strict-config` is dropped from the effective addopts (`-o addopts=...`, the rest kept as
//   written) when an ini key of the configuration belongs to a plugin best effort recorded
//   `missing`: pytest would fail the whole suite on "Unknown config option" before any test ran,
//   for a plugin no source has.
import type { EnvPlan } from '../plan/types.js';
import type { PytestPlugin } from '../build/project/pytest-entry-points.js';
import type { Shortfall } from '../build/shortfall.js';
import { normalize } from '../build/step-output.js';

export interface PytestRunEnv {
  /** The variables to set in every run_test container (the plan's testEnv among them). */
  env: Record<string, string>;
  /** One line each, said once per command (the environment's notes). */
  notes: string[];
  /** What changes a run's result, leading each run_test's output: the dropped --strict-config. */
  runNotes: string[];
}

/** shlex's quoting of one word (pytest splits PYTEST_ADDOPTS and addopts with shlex). */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** The plugins to load by name: each plugin whose distribution the project's plan names. */
function namedPlugins(plan: EnvPlan, plugins: PytestPlugin[]): PytestPlugin[] {
  const named = new Set(plan.requirements.map((q) => normalize(q.name)));
  if (plan.project.name) named.add(normalize(plan.project.name));
  return plugins.filter((p) => named.has(p.dist));
}

/** The `-o addopts=...` that drops `--strict-config`, and why; null when it stays. */
function strictConfigOverride(
  plan: EnvPlan,
  shortfalls: Shortfall[],
): { option: string; note: string } | null {
  const pytest = plan.pytest;
  if (!pytest || !pytest.addopts.includes('--strict-config')) return null;
  const missing = new Set(shortfalls.filter((s) => s.kind === 'missing').map((s) => normalize(s.name)));
  const needs = pytest.iniNeeds.filter((n) => missing.has(n.dist));
  if (!needs.length) return null;
  const rest = pytest.addopts.filter((w) => w !== '--strict-config');
  const why = needs.map((n) => `${n.key} needs ${n.dist}`).join(', ');
  return {
    option: `-o ${shellQuote(`addopts=${rest.map(shellQuote).join(' ')}`)}`,
    note: `pytest: --strict-config dropped from ${pytest.source} addopts: ${why}, which no source has (missing); the rest of addopts is kept`,
  };
}

/**
 * The run variables. `plugins` null means the image is not one piper built (a user image): it
 * runs as it is, with the plan's testEnv only. `imageAddopts` is the sandbox image's own
 * PYTEST_ADDOPTS, which a PYTEST_ADDOPTS of the project's test step replaces as before.
 */
export function pytestRunEnv(
  plan: EnvPlan | null,
  plugins: PytestPlugin[] | null,
  shortfalls: Shortfall[],
  imageAddopts: string,
): PytestRunEnv {
  const testEnv = plan?.testEnv ?? {};
  if (!plan || !plugins) return { env: testEnv, notes: [], runNotes: [] };
  // A plugin whose distribution fails at import would end pytest's start-up: it is not loaded.
  const broken = new Set(shortfalls.filter((s) => s.kind === 'broken').map((s) => normalize(s.name)));
  const loaded = namedPlugins(plan, plugins).filter((p) => !broken.has(p.dist));
  const strict = strictConfigOverride(plan, shortfalls);
  const addopts = [
    testEnv.PYTEST_ADDOPTS ?? imageAddopts,
    ...loaded.map((p) => `-p ${p.name}`),
    ...(strict ? [strict.option] : []),
  ].filter((w) => w !== '');
  const left = plugins.filter((p) => !loaded.includes(p));
  const listed = (ps: PytestPlugin[]) => ps.map((p) => `${p.name} (${p.dist})`).join(', ') || 'none';
  const unnamed = left.filter((p) => !broken.has(p.dist));
  const failing = left.filter((p) => broken.has(p.dist));
  const notes = [
    `pytest: plugin autoload off; loaded as the project names them: ${listed(loaded)}${unnamed.length ? `; not loaded, not named by the project: ${listed(unnamed)}` : ''}${failing.length ? `; not loaded, failing at import (broken): ${listed(failing)}` : ''}`,
    ...(strict ? [strict.note] : []),
  ];
  return {
    env: { ...testEnv, PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1', PYTEST_ADDOPTS: addopts.join(' ') },
    notes,
    runNotes: strict ? [strict.note] : [],
  };
}
