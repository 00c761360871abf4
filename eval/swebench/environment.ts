// An instance's environment and its sandbox: the project environment of its work tree at
// base_commit (runtime/env: reused by content key, built otherwise — the images are filed under the
// repository's name, not the tree's path, so base commits of one repository whose declarations
// give the same key share one image), on the Debian release the set chose, and a Sandbox over that image
// with the hardened limits of every sandbox. The repository is untrusted: its recipe's setup
// commands and index URLs are not used. An instance the SWE-bench harness has a spec for is planned
// from a copy of its tree holding that spec as its recipe (spec-tree.ts).
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { sourcesSetting } from '../../core/env-option.js';
import { ensureEnvironment, type EnvironmentChoice } from '../../runtime/env/choose/ensure.js';
import type { DebianRelease } from '../../runtime/env/plan/read/marker-env.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { detectLanguage } from '../../runtime/language/detect-language.js';
import type { LanguageId } from '../../runtime/language/language.js';
import { planJsEnvironment } from '../../runtime/env/js/plan/plan-js.js';
import { pythonOf } from './debian.js';
import type { SweInstance } from './instance-file.js';
import { environmentTree, instanceSpec, type SpecUse } from './spec-tree.js';
import { jsRunnerOf } from './js-grading.js';
import { isJsLogParser } from './js-test-names.js';
import { specEntry } from './harness-spec.js';

export interface InstanceEnvironment {
  choice: EnvironmentChoice;
  sandbox: Sandbox;
  /** The project's test variables (its CI's), set in every test container. */
  testEnv: Record<string, string>;
  /** The harness spec it was built from (null: the repository's declarations alone). */
  spec: SpecUse | null;
  /** The repository's language at base_commit (its files say which: detect-language.ts). */
  language: LanguageId;
  /** A JavaScript repository's runner (its plan's, else the one its package.json depends on). */
  testRunner?: string;
}

export interface EnvironmentContext {
  engine: DockerEngine;
  ledger: Ledger;
  owner: string;
  /** The OCI runtime of the command's sandboxes (null: the engine's default). */
  runtime: string | null;
  log(line: string): void;
}

/**
 * The index as it stood when the issue was filed, when asked (PIPER_EVAL_INDEX_DATE=created_at): an
 * unpinned requirement then resolves as it did that day. Not by default: on a Python newer than the
 * instance's, the releases of its day often do not run there (pytest 3.5 on 3.13 fails at import),
 * so the date is for runs whose sandbox Python is the instance's own.
 */
function instanceDate(instance: SweInstance): { indexDate?: string } {
  const asked = process.env.PIPER_EVAL_INDEX_DATE === 'created_at';
  return asked && instance.created_at ? { indexDate: instance.created_at } : {};
}

/**
 * A JavaScript log parser says JavaScript; a Python one, or a harness spec (SWE-bench's specs are
 * Python's), says Python; else the base tree's files say (detect-language.ts).
 */
export function instanceLanguage(instance: SweInstance, repoRoot: string): LanguageId {
  if (isJsLogParser(instance.log_parser)) return 'javascript';
  if (instance.log_parser || specEntry(instance)) return 'python';
  return detectLanguage(repoRoot).id;
}

export async function instanceEnvironment(
  ctx: EnvironmentContext,
  workTree: string,
  debian: DebianRelease | undefined,
  instance: SweInstance,
): Promise<InstanceEnvironment> {
  const python = pythonOf(debian);
  const { tree: repoRoot, use } = environmentTree(workTree, instanceSpec(instance, debian));
  const language = instanceLanguage(instance, repoRoot);
  const jsPlan = language === 'javascript' ? planJsEnvironment(repoRoot) : undefined;
  const choice = await ensureEnvironment({
    ...(jsPlan ? { language: 'javascript' as const, jsPlan } : {}),
    engine: ctx.engine,
    ledger: ctx.ledger,
    repoRoot,
    mode: 'auto',
    trustRecipe: false,
    owner: ctx.owner,
    log: ctx.log,
    projectName: `swebench:${instance.repo}`,
    ...(python ? { python } : {}),
    ...instanceDate(instance),
    // Where its packages come from, as for any command: PIPER_SOURCES, else your config, else the index.
    sources: sourcesSetting(repoRoot, {}),
  });
  const sandbox = new Sandbox(ctx.engine, {
    image: choice.image,
    envKey: choice.key,
    poolSize: 0,
    concurrency: 2,
    runtime: ctx.runtime,
    log: ctx.log,
  });
  const testEnv = jsPlan?.testEnv ?? choice.plan?.testEnv ?? {};
  const runner = jsPlan ? jsRunnerOf(jsPlan, repoRoot) : undefined;
  return { choice, sandbox, testEnv, spec: use, language, ...(runner ? { testRunner: runner } : {}) };
}
