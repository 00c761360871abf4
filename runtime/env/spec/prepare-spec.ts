// The build spec of a repository as this command may build it: the plan, the setup commands and
// pip settings the user's trust allows, and what the user should be told of what was left out.
// No engine: `env plan --json` prints it, and the environment is chosen by its hash (choose/).
import { loadRecipe } from '../../images/recipe.js';
import { parseCutoff } from '../floor/index-date.js';
import { planEnvironment } from '../plan/detect.js';
import type { SandboxPython } from '../plan/read/marker-env.js';
import { pipSettings, type PipSettings } from '../plan/pip-settings.js';
import type { EnvPlan, EnvSources } from '../plan/types.js';
import { RECIPE_PATH } from '../plan/recipe.js';
import { makeBuildSpec } from './build-spec.js';
import type { BuildSpec } from './spec-schema.js';

export interface PreparedSpec {
  spec: BuildSpec;
  /** The whole plan, with what the run side reads and the plan's explanations. */
  plan: EnvPlan;
  /** The raw pip settings (credentials included): for the build's networked steps only. */
  pip: PipSettings;
  notes: string[];
}

/** The `sources` setting as the configuration gives it, and the layer it came from (core/config.ts). */
export interface SourcesSetting {
  value: EnvSources;
  from: 'default' | 'user' | 'repo' | 'env' | 'flag';
}

/**
 * The sources a build uses: a flag or variable over everything; else the recipe's `sources`
 * over the configuration files — but a repository's `index` over your own `debian` only when you
 * trust its recipe (it would send requests to the index you turned off). Debian always narrows.
 */
export function chooseSources(
  setting: SourcesSetting | undefined,
  recipe: EnvSources | undefined,
  trustRecipe: boolean,
): { sources: EnvSources; note: string | null } {
  const configured = setting ?? { value: 'index', from: 'default' };
  if (recipe === undefined || configured.from === 'flag' || configured.from === 'env')
    return { sources: configured.value, note: null };
  if (recipe === 'debian' || configured.value === 'index' || trustRecipe)
    return { sources: recipe, note: null };
  return {
    sources: configured.value,
    note: `ignored sources = "index" of ${RECIPE_PATH}: your configuration says debian, and the repository is not trusted (--trust-repo-config)`,
  };
}

/** The index date as one instant (so one date spelled two ways is one key), or null: unset or unreadable (said). */
function chooseIndexDate(text: string | undefined, notes: string[]): string | null {
  if (!text?.trim()) return null;
  const ms = parseCutoff(text);
  if (ms === null) {
    notes.push(
      `index date "${text.slice(0, 40)}" is not a date (YYYY-MM-DD or ISO 8601): the index is used as it is now`,
    );
    return null;
  }
  return new Date(ms).toISOString();
}

export function prepareSpec(input: {
  repoRoot: string;
  trustRecipe: boolean;
  strict: boolean;
  env: NodeJS.ProcessEnv;
  python?: SandboxPython;
  /** The `sources` setting (absent: the default, `index`). */
  sources?: SourcesSetting;
  /** The index as of this date or instant (the eval's instance date), over PIPER_INDEX_DATE. */
  indexDate?: string;
  /** The builder's catalog of scripts (build/step-catalog.ts stepCatalog()), part of the spec. */
  steps: BuildSpec['steps'];
}): PreparedSpec {
  const { repoRoot, trustRecipe } = input;
  const plan = planEnvironment(repoRoot, input.python ? { python: input.python } : {});
  const notes: string[] = [];
  const setup = trustRecipe ? plan.setup : [];
  if (!trustRecipe && plan.setup.length)
    notes.push(
      `ignored ${plan.setup.length} setup command(s) of .piper/sandbox.toml: the repository is not trusted (--trust-repo-config)`,
    );
  const pip = pipSettings(plan, input.env, { trustRepoIndex: trustRecipe, repoRoot });
  notes.push(...pip.notes);
  const strict = input.strict || plan.strict === true;
  const base = { suite: plan.debian, recipe: loadRecipe({ suite: plan.debian }).hash };
  const chosen = chooseSources(input.sources, plan.sources, trustRecipe);
  if (chosen.note) notes.push(chosen.note);
  const indexDate = chooseIndexDate(input.indexDate ?? input.env.PIPER_INDEX_DATE, notes);
  const spec = makeBuildSpec({
    repoRoot,
    plan,
    base,
    pip,
    setup,
    trustUrls: trustRecipe,
    strict,
    sources: chosen.sources,
    ...(indexDate ? { indexDate } : {}),
    steps: input.steps,
  });
  return { spec, plan, pip, notes };
}
