// The environment plan: what the builder installs, from which file, and why. Declared once, in
// zod, because the plan is stored (ledger) and read back; the schema's key order is the order of
// the JSON form (parsing through it puts every key in place), so `env plan --json` is stable.
import { z } from 'zod';
import { DEBIAN_RELEASES, SANDBOX_PYTHONS } from './read/marker-env.js';

/**
 * Where an environment's packages come from: `index` (pip from the index, as a clean venv in CI
 * would get them; Debian's packages only for what the index does not give) or `debian` (Debian's
 * packages, the index never asked).
 */
export const ENV_SOURCES = ['index', 'debian'] as const;
export type EnvSources = (typeof ENV_SOURCES)[number];

const PlannedRequirementSchema = z.object({
  name: z.string(),
  /** PEP 503-normalized name: the deduplication key. */
  normalized: z.string(),
  /** Canonical PEP 508 text (credentials in a URL redacted). */
  line: z.string(),
  /** Comma-joined sorted specifiers, '' when none. */
  specifier: z.string(),
  extras: z.array(z.string()),
  marker: z.string().optional(),
  /** Raw URL of a `name @ url` requirement (for pip; redact before showing it). */
  url: z.string().optional(),
  /** Every place it came from, '; '-joined, e.g. `pyproject.toml [project].dependencies; requirements.txt:3`. */
  from: z.string(),
  /**
   * Why it is installed: the first source to name it (inferred: a test imports it or the pytest
   * configuration needs it; test-command: the project's test command names it, e.g. `coverage run`).
   */
  reason: z.enum(['runtime', 'test', 'inferred', 'test-command', 'build', 'recipe']),
  /**
   * True when every place it came from is optional for the tests (an import under `try: ...
   * except ImportError`, a `pytest.importorskip`): the builder may go on without it.
   */
  optional: z.boolean().default(false),
  /** The Debian package that provides it (dh-python's map), null when Debian has none. */
  debian: z.string().nullable(),
});

const SkippedRequirementSchema = z.object({
  line: z.string(),
  from: z.string(),
  reason: z.string(),
});

/** A lockfile's closure for the sandbox's Python: each package at its locked version, with its sha256 hashes. */
const LockedSchema = z.object({
  /** The lockfile (or the hashed requirements files, ', '-joined) it was read from. */
  from: z.string(),
  packages: z.array(z.object({ name: z.string(), version: z.string(), hashes: z.array(z.string()) })),
});

const PlanInputSchema = z.object({
  path: z.string(),
  sha256: z.string(),
  role: z.enum(['dependencies', 'lockfile', 'recipe', 'wheelhouse']),
  /** Bytes, for wheelhouse files (their listing is name + size + sha256). */
  size: z.number().int().optional(),
});

export const EnvPlanSchema = z.object({
  python: z.enum(SANDBOX_PYTHONS),
  debian: z.enum(DEBIAN_RELEASES),
  project: z.object({
    name: z.string().nullable(),
    installable: z.boolean(),
    // [real-fixtures hook] 'package-dir' (a mapped root package, e.g. lib/) and its import root.
    layout: z.enum(['src', 'flat', 'package-dir']),
    /** /work, /work/src, or the mapped directory (/work/lib); plain segments only. */
    importRoot: z.string().regex(/^\/work(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/),
    buildBackend: z.string().nullable(),
    buildRequires: z.array(z.string()),
  }),
  /** Deduplicated by normalized name; specifiers and extras merged. */
  requirements: z.array(PlannedRequirementSchema),
  skipped: z.array(SkippedRequirementSchema),
  /**
   * Installed as locked (`--no-deps --require-hashes`): absent without a lockfile that has hashes
   * for every package, so a plan without one is as it was.
   */
  locked: LockedSchema.optional(),
  decisions: z.array(z.string()),
  pip: z.object({
    /** Raw (may hold credentials): for the builder only; renderings redact it. */
    indexUrl: z.string().nullable(),
    extraIndexUrls: z.array(z.string()),
    /** Repo-relative directories, or URLs as written. */
    findLinks: z.array(z.string()),
    /** Where each pip option above was read: `file:line` or `.piper/sandbox.toml <key>`. */
    fromFiles: z.array(z.string()),
  }),
  apt: z.array(z.string()),
  setup: z.array(z.string()),
  /** The project's test command (runtime/env/plan/tests/test-command.ts); null in plans made before it was detected. */
  testCommand: z.string().nullable(),
  /** Where it came from, e.g. `.github/workflows/ci.yml job test step "Run tests"`. */
  testCommandFrom: z.string().nullable().default(null),
  /** Variables its step sets: repository text, never a `${{ }}` expression, no name that changes the sandbox. */
  testEnv: z.record(z.string(), z.string()).default({}),
  /**
   * The pytest configuration as the run side needs it (runtime/env/run/pytest-run-env.ts): its addopts
   * words, and the ini keys only a plugin defines, with that plugin's normalized name.
   */
  pytest: z
    .object({
      source: z.string(),
      addopts: z.array(z.string()),
      iniNeeds: z.array(z.object({ key: z.string(), dist: z.string() })),
    })
    .nullable()
    .default(null),
  /** The recipe's `strict = true`: no best effort (absent otherwise). */
  strict: z.boolean().optional(),
  /** The recipe's `sources` (absent when it sets none): weighed against the user's setting (prepare-spec.ts). */
  sources: z.enum(ENV_SOURCES).optional(),
  recipe: z.object({ path: z.string(), sha256: z.string() }).nullable(),
  /** Every file read (includes too), sorted by role then path. */
  inputs: z.array(PlanInputSchema),
});

export type PlannedRequirement = z.infer<typeof PlannedRequirementSchema>;
export type SkippedRequirement = z.infer<typeof SkippedRequirementSchema>;
export type PlanInput = z.infer<typeof PlanInputSchema>;
export type LockedClosure = z.infer<typeof LockedSchema>;
export type EnvPlan = z.infer<typeof EnvPlanSchema>;
