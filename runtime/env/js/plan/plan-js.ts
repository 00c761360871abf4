// The environment plan of a JavaScript/TypeScript repository, read on the host without running
// anything: the manifests and workspaces, the package manager and its lockfile, Node's major, the
// sanitized configuration files, whether the project has TypeScript, and the test command as its CI
// runs it. Every choice is one sentence in `decisions`.
import { readCiJobs } from '../read/ci-workflows.js';
import { isRecord, JsFiles } from '../read/js-files.js';
import { detectJsTestCommand } from '../tests/test-command.js';
import { configFiles } from './config-files.js';
import { JsPlanSchema, type JsPlan } from './js-plan.js';
import { readManifests } from './manifests.js';
import { patchFiles } from './patch-files.js';
import { chooseNode } from './node-version.js';
import { chooseManager } from './package-manager.js';
import { EnvPlanError } from '../../plan/errors.js';

export interface JsPlanOptions {
  /** The recipe's Node version (`20`, `lts/iron`), over every file's. */
  node?: string;
  /** The recipe's test command, over the detected one. */
  test?: string;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** TypeScript: a tsconfig.json at the root and the typescript package in some manifest. */
function hasTypescript(
  files: JsFiles,
  manifests: Array<Record<string, unknown>>,
  decisions: string[],
): boolean {
  const tsconfig = files.read('tsconfig.json', 'config') !== null;
  const named = manifests.some(
    (m) => 'typescript' in stringRecord(m.devDependencies) || 'typescript' in stringRecord(m.dependencies),
  );
  const has = tsconfig && named;
  decisions.push(
    has
      ? 'TypeScript: tsconfig.json and the typescript package (the tsc gate applies)'
      : `no TypeScript gate: ${tsconfig ? 'no typescript package in the manifests' : 'no tsconfig.json at the root'}`,
  );
  return has;
}

export function planJsEnvironment(repoRoot: string, opts: JsPlanOptions = {}): JsPlan {
  const decisions: string[] = [];
  const files = new JsFiles(repoRoot, decisions);
  const manifests = readManifests(files, decisions);
  if (!manifests)
    throw new EnvPlanError('bad_project_file', 'no readable package.json at the repository root', {
      file: 'package.json',
    });
  const jobs = readCiJobs(files, decisions);
  const root = manifests.root;
  const manager = chooseManager({ files, jobs, root }, decisions);
  const ctx = {
    scripts: stringRecord(root.scripts),
    preHooks: manager.name === 'npm' || manager.name === 'yarn',
  };
  const tests = detectJsTestCommand(
    {
      jobs,
      ctx,
      workspaces: manifests.data.slice(1).map((m) => stringRecord(m.scripts)),
      ...(opts.test !== undefined ? { recipeTest: opts.test } : {}),
    },
    decisions,
  );
  const node = chooseNode(
    {
      files,
      jobs,
      root,
      testFrom: tests.from,
      ...(opts.node !== undefined ? { recipeNode: opts.node } : {}),
    },
    decisions,
  );
  decisions.push(`Node ${node.major}: ${node.from}`);
  const config = configFiles(files, decisions, manager.name === 'npm' ? manager.ciInstall : null);
  const dirs = ['', ...manifests.workspaces];
  const patches = patchFiles(
    files,
    manifests.data.map((data, i) => ({ dir: dirs[i]!, data })),
    decisions,
  );
  const typescript = hasTypescript(files, manifests.data, decisions);
  return JsPlanSchema.parse({
    language: 'javascript',
    node,
    manager: { name: manager.name, version: manager.version, from: manager.from },
    lockfile: manager.lockfile ? { path: manager.lockfile.path, sha256: manager.lockfile.sha256 } : null,
    manifests: manifests.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    patchFiles: patches,
    workspaces: manifests.workspaces,
    configFiles: config,
    typescript,
    testCommand: tests.command,
    testCommandFrom: tests.from,
    testRunner: tests.runner,
    testEnv: tests.env,
    decisions,
  });
}
