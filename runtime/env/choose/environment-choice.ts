// What choosing an environment takes and gives: the mode, the input of ensureEnvironment and the
// choice every command's sandboxes then run in (ensure.ts makes it).
import type { DockerEngine } from '../../engine/docker-engine.js';
import type { EnvironmentStatus, ResolvedPackage } from '../../ledger/environments.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { LanguageId } from '../../language/language.js';
import type { Shortfall } from '../build/shortfall.js';
import type { PytestPlugin } from '../build/project/pytest-entry-points.js';
import type { JsPlan } from '../js/plan/js-plan.js';
import type { SandboxPython } from '../plan/read/marker-env.js';
import type { EnvPlan } from '../plan/types.js';
import type { PytestRunEnv } from '../run/pytest-run-env.js';
import type { SourcesSetting } from '../spec/prepare-spec.js';

/** auto: build or reuse; base: the bare sandbox image; rebuild: build again; strict: auto without best effort. */
export type EnvMode = 'auto' | 'base' | 'rebuild' | 'strict';

export interface EnvironmentChoice {
  /** The image every sandbox of the command uses. */
  image: string;
  key: string | null;
  status: Exclude<EnvironmentStatus, 'failed'>;
  seconds: number;
  /** What each source gave (built), or the sources of the build that made it (hit). */
  sources: string[];
  /** Things the user should see once: ignored untrusted settings, pruned images. */
  notes: string[];
  plan: EnvPlan | null;
  resolved: ResolvedPackage[];
  /** What best effort relaxed or left out (this build's, or the reused build's). */
  shortfalls: Shortfall[];
  /** The pytest plugins in the image (null: a user image, not known); the run variables from them. */
  pytestPlugins: PytestPlugin[] | null;
  /** What every run_test sets in its container (the plan's testEnv among it), and says of it. */
  run: PytestRunEnv;
  /** A fallback build from Debian's packages (the index did not answer): the one line that says so. */
  fallback?: string;
  /** A JavaScript environment's plan (plan is then null). */
  jsPlan?: JsPlan;
}

export interface EnsureInput {
  engine: DockerEngine;
  ledger: Ledger | null;
  repoRoot: string;
  mode: EnvMode;
  /** PIPER_SANDBOX_IMAGE / the `image` config key / --image: used as it is. */
  userImage?: string;
  /** Whether the user trusts the repository's recipe (index URLs, setup commands). */
  trustRecipe: boolean;
  owner: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The sandbox's Python when the recipe does not choose a Debian release (an A/B set's --debian). */
  python?: SandboxPython;
  /** The index as of this date (an instance's created_at), over PIPER_INDEX_DATE (spec/prepare-spec.ts). */
  indexDate?: string;
  /**
   * The images are filed under this project name instead of the tree's path (names.ts), and not
   * pruned: the caller's trees (one per base commit) share them, and it keeps what it needs.
   */
  projectName?: string;
  /** false: no Debian layer is looked for or kept (BuildInput.debianLayers; the bench's baseline). */
  debianLayers?: boolean;
  /** The `sources` setting and its layer (core/config.ts); absent: `index`, the default. */
  sources?: SourcesSetting;
  /** The repository's language (the session's profile); absent: python. */
  language?: LanguageId;
  /** With language javascript: the repository's JavaScript plan. */
  jsPlan?: JsPlan;
}
