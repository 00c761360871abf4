// The environment plan of a JavaScript/TypeScript repository: what the planner read (package.json
// files, the lockfile, the package manager and Node's major) and what the builder does with it.
// Declared once, in zod: the plan is stored in the ledger and hashed into the image key, and the
// builder reads nothing of the repository but what the plan names (manifests and lockfile as data,
// never the tree, reach the networked download).
import { z } from 'zod';
import { JS_TEST_RUNNERS } from '../tests/runner-kind.js';

const JS_MANAGERS = ['npm', 'pnpm', 'yarn', 'yarn-berry'] as const;
export type JsManager = (typeof JS_MANAGERS)[number];

const FileInputSchema = z.object({
  /** Repo-relative, '/' separators. */
  path: z.string(),
  sha256: z.string(),
});

export const JsPlanSchema = z.object({
  language: z.literal('javascript'),
  node: z.object({
    /** The Node.js major the sandbox gets (a real build, provided by piper). */
    major: z.number().int().positive(),
    /** Where the choice came from: `.nvmrc`, `package.json engines.node`, the CI workflow, or the default. */
    from: z.string(),
  }),
  manager: z.object({
    name: z.enum(JS_MANAGERS),
    /** An exact version of piper's own trusted copy of the manager (never the repository's binary). */
    version: z.string(),
    from: z.string(),
  }),
  /** The lockfile the install follows; null: none (an unlocked install, said in decisions). */
  lockfile: FileInputSchema.nullable(),
  /** Every package.json the install reads: the root first, then each workspace package's. */
  manifests: z.array(FileInputSchema),
  /**
   * Patch files the install applies (pnpm `patchedDependencies`, yarn berry `patch:`), copied with the
   * manifests as data; absent in plans made before they were read.
   */
  patchFiles: z.array(FileInputSchema).optional(),
  /** Workspace package directories (repo-relative), as the manifests or pnpm-workspace.yaml name them. */
  workspaces: z.array(z.string()),
  /** Configuration files copied to the download, sanitized to an allowlist of keys (credentials exec-only). */
  configFiles: z.array(FileInputSchema.extend({ text: z.string() })),
  /** Whether the project has TypeScript (a tsconfig.json and the typescript package): the tsc gate. */
  typescript: z.boolean(),
  /** The project's own test command, as its CI or package.json runs it; null: none found. */
  testCommand: z.string().nullable(),
  testCommandFrom: z.string(),
  /**
   * Which runner the command starts, so the output reader can ask it for machine-readable output
   * ('unknown': none this planner knows, or no command; absent in plans made before it was read).
   */
  testRunner: z.enum(JS_TEST_RUNNERS).optional(),
  /** Variables the CI sets for the test step (names checked like the Python plan's testEnv). */
  testEnv: z.record(z.string(), z.string()),
  /** One sentence per choice, for `env plan`. */
  decisions: z.array(z.string()),
});

export type JsPlan = z.infer<typeof JsPlanSchema>;
