// The build spec of a repository as this command may build it: the plan, the setup commands and
// pip settings the user's trust allows, and what the user should be told of what was left out.
// No engine: `env plan --json` prints it, and the environment is chosen by its hash (choose/).
import { loadRecipe } from '../../images/recipe.js';
import { planEnvironment } from '../plan/detect.js';
import type { SandboxPython } from '../plan/read/marker-env.js';
import { pipSettings, type PipSettings } from '../plan/pip-settings.js';
import type { EnvPlan } from '../plan/types.js';
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

export function prepareSpec(input: {
  repoRoot: string;
  trustRecipe: boolean;
  strict: boolean;
  env: NodeJS.ProcessEnv;
  python?: SandboxPython;
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
  const spec = makeBuildSpec({ repoRoot, plan, base, pip, setup, trustUrls: trustRecipe, strict });
  return { spec, plan, pip, notes };
}
