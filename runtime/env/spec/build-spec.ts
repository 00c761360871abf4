// The build spec: everything an environment build is made from, as one data object — the plan (the
// planner is the only reader of the repository), the facts it read for the build (compiled parts,
// the VCS version, build files, wheels, the snapshot's hash), the host's pip settings that apply,
// the trusted setup commands, and every script a build step can run (the caller's copy of the
// builder's catalog). `env plan --json` prints it
// (redacted); the image key is its hash (choose/key.ts), so nothing that shapes an image is left
// out of the key by hand. The builder executes it phase by phase and derives nothing of its own.
import { readBuildFacts } from '../plan/build-facts.js';
import type { PipSettings } from '../plan/pip-settings.js';
import { launchersFor } from '../plan/tests/test-programs.js';
import type { EnvPlan, EnvSources } from '../plan/types.js';
import { BuildPlanSchema, type BuildSpec } from './spec-schema.js';

export interface SpecInput {
  repoRoot: string;
  plan: EnvPlan;
  base: { suite: BuildSpec['base']['suite']; recipe: string };
  pip: PipSettings;
  setup: string[];
  trustUrls: boolean;
  strict: boolean;
  /** Where the packages come from (default `index`); a fallback is made from this spec (fallbackSpec). */
  sources?: EnvSources;
  /** The index as of this instant (ISO 8601), when set. */
  indexDate?: string;
  /**
   * Every script a build step can run, the builder's catalog (build/step-catalog.ts), given by the
   * caller: the spec is made before the build and imports nothing of it.
   */
  steps: BuildSpec['steps'];
}

/** Whether the project phase runs the repository's code (its build backend, trusted setup commands). */
function runsProjectCode(plan: EnvPlan, setup: string[]): boolean {
  return plan.project.installable || setup.length > 0;
}

export function makeBuildSpec(input: SpecInput): BuildSpec {
  const { plan, pip } = input;
  const facts = readBuildFacts(input.repoRoot, plan, pip, runsProjectCode(plan, input.setup));
  return {
    base: input.base,
    plan: BuildPlanSchema.parse(plan),
    pip: {
      indexUrl: pip.indexUrl,
      extraIndexUrls: pip.extraIndexUrls,
      findLinkUrls: pip.findLinkUrls,
      trustedHosts: pip.trustedHosts,
      defaultIndex: pip.defaultIndex,
      repoWheels: facts.repoWheels,
      userWheels: facts.userWheels,
      ...(pip.network.noIndex ? { noIndex: true as const } : {}),
      ...(pip.network.constraints.length ? { constraints: pip.network.constraints } : {}),
    },
    setup: input.setup,
    trustUrls: input.trustUrls,
    strict: input.strict,
    sources: { setting: input.sources ?? 'index', used: input.sources ?? 'index', fallback: false },
    ...(input.indexDate ? { indexDate: input.indexDate } : {}),
    native: facts.native,
    buildFiles: facts.buildFiles,
    launchers: launchersFor(plan.testCommand),
    checkout: { snapshot: facts.snapshot, version: facts.version },
    steps: input.steps,
  };
}
