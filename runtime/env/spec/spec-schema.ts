// The build spec's shape (build-spec.ts makes it): zod, so its JSON form's key order is the
// schema's, and its hash (choose/key.ts) is the same for the same spec; and its redacted form, as
// shown and hashed. Apart from the step catalog and the planner, so the builder can name the type.
import { z } from 'zod';
import { DEBIAN_RELEASES } from '../plan/read/marker-env.js';
import { redactUrl } from '../plan/read/redact.js';
import { redactPlanUrls } from '../plan/render.js';
import { ENV_SOURCES, EnvPlanSchema } from '../plan/types.js';

const WheelDirSchema = z.object({
  dir: z.string(),
  wheels: z.array(z.object({ file: z.string(), size: z.number().int(), hash: z.string() })),
});

/**
 * The plan as a build uses it: what the run side reads (the test command, its variables, the pytest
 * configuration) and the plan's own explanations are not build input, and an edit to them (a new
 * CI step, one more test file read) builds nothing again. The launchers the test command needs are.
 */
export const BuildPlanSchema = EnvPlanSchema.omit({
  decisions: true,
  testCommand: true,
  testCommandFrom: true,
  testEnv: true,
  pytest: true,
});

const BuildSpecSchema = z.object({
  /** The sandbox image the build starts FROM: its Debian release and its recipe's hash. */
  base: z.object({ suite: z.enum(DEBIAN_RELEASES), recipe: z.string() }),
  plan: BuildPlanSchema,
  /** The sources pip may use (URLs redacted when shown and hashed: a new password is the same index). */
  pip: z.object({
    indexUrl: z.string().nullable(),
    extraIndexUrls: z.array(z.string()),
    findLinkUrls: z.array(z.string()),
    trustedHosts: z.array(z.string()),
    defaultIndex: z.boolean(),
    repoWheels: z.array(WheelDirSchema),
    userWheels: z.array(WheelDirSchema),
    /**
     * The user's pip `no-index` and `constraint` files (their sha256; a URL redacted): they decide
     * what is downloaded. Absent when unset, so a build without them keeps its key. How the index
     * is reached (CA bundle, client certificate, proxy, netrc) is not here: it changes no package.
     */
    noIndex: z.literal(true).optional(),
    constraints: z.array(z.string()).optional(),
  }),
  /** The recipe's setup commands when the user trusts them; else none. */
  setup: z.array(z.string()),
  /** Whether `name @ URL` requirements may go to pip (the user trusts the repository's recipe). */
  trustUrls: z.boolean(),
  strict: z.boolean(),
  /**
   * Where the packages come from: the setting, what this build uses, and whether that is a
   * fallback (`index` asked for, the index did not answer: Debian's packages instead). In the keys,
   * so an index build, a Debian build and a fallback build never share an image.
   */
  sources: z.object({
    setting: z.enum(ENV_SOURCES),
    used: z.enum(ENV_SOURCES),
    fallback: z.boolean(),
  }),
  /**
   * The index as of this instant (ISO 8601, UTC): only files uploaded before it are offered
   * (build/network/dated-index.ts). Absent when unset, so a build without it keeps its key.
   */
  indexDate: z.string().optional(),
  native: z
    .object({
      kind: z.enum(['setuptools', 'meson-python', 'scikit-build', 'rust']),
      evidence: z.string(),
      apt: z.array(z.string()),
    })
    .nullable(),
  buildFiles: z.array(z.object({ path: z.string(), sha256: z.string().nullable() })),
  /** The venv's launchers for the test command's runners (venv-launchers.ts). */
  launchers: z.array(z.object({ program: z.string(), module: z.string() })),
  /** What only this checkout gives: the project's build code may read any of it. */
  checkout: z.object({
    snapshot: z.string().nullable(),
    version: z.object({
      env: z.record(z.string(), z.string()).optional(),
      note: z.string().optional(),
      pkgInfo: z.string().optional(),
    }),
  }),
  steps: z.array(
    z.object({
      phase: z.enum(['dependencies', 'build tools', 'wheelhouse', 'project', 'top-up', 'image']),
      step: z.string(),
      script: z.string(),
    }),
  ),
});

export type BuildSpec = z.infer<typeof BuildSpecSchema>;

/** The environment image's `piper.env.sources` label: `index`, `debian`, or `debian-fallback`. */
export function sourcesLabel(sources: BuildSpec['sources']): string {
  return sources.fallback ? 'debian-fallback' : sources.used;
}

/** The spec of the build that stands in when the index does not answer: Debian's packages, marked a fallback. */
export function fallbackSpec(spec: BuildSpec): BuildSpec {
  return { ...spec, sources: { setting: spec.sources.setting, used: 'debian', fallback: true } };
}

/** The spec as shown and as hashed: every URL's credentials replaced by `***`, keys in the schema's order. */
export function redactSpec(spec: BuildSpec): BuildSpec {
  return BuildSpecSchema.parse({
    ...spec,
    plan: redactPlanUrls(spec.plan),
    pip: {
      ...spec.pip,
      indexUrl: spec.pip.indexUrl === null ? null : redactUrl(spec.pip.indexUrl),
      extraIndexUrls: spec.pip.extraIndexUrls.map(redactUrl),
      findLinkUrls: spec.pip.findLinkUrls.map(redactUrl),
    },
  });
}
