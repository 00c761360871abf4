// Where piper's JavaScript toolchain and a project's installed tree live in an image, and the PATH
// every step and run gets. One module of names, so the toolchain, the build and the sandbox's entry
// point (which reads PIPER_JS_TREE) agree.
import type { JsManager } from '../plan/js-plan.js';

export const NODE_HOME = '/opt/piper/node';
export const PM_HOME = '/opt/piper/pm';
/** piper's wrappers: `npm`, `npx`, and the plan's manager by its command name. */
export const TOOL_BIN = '/opt/piper/bin';
/** The project's manifests and installed tree (node_modules, nested workspace ones). */
export const JS_TREE = '/opt/piper/js';
/** The file listing, one a line, the directories (relative, '.' the root) whose node_modules the entry point links. */
export const JS_LINKS_FILE = `${JS_TREE}/.piper-node-modules`;

export const JS_PATH = `/work/node_modules/.bin:${TOOL_BIN}:${NODE_HOME}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;

/** The manager's command name and its entry script under PM_HOME/<manager>. */
export const MANAGER_ENTRY: Readonly<Record<JsManager, { command: string; script: string }>> = {
  npm: { command: 'npm', script: 'bin/npm-cli.js' },
  pnpm: { command: 'pnpm', script: 'bin/pnpm.cjs' },
  yarn: { command: 'yarn', script: 'bin/yarn.js' },
  'yarn-berry': { command: 'yarn', script: 'bin/yarn.js' },
};
