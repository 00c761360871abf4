// The two commands of a JavaScript environment build, as pure functions of the plan. Phase 1 (with
// the network, holding no repository code: only manifests, the lockfile and sanitized config) is
// piper's trusted manager with every script off; phase 2 (no network, no secret) runs the
// lifecycle scripts and native builds over the downloaded tree. Each runs in JS_TREE.
import type { JsManager } from '../plan/js-plan.js';
import { JS_PATH, JS_TREE, NODE_HOME, TOOL_BIN } from '../toolchain/layout.js';

/** Install scripts that fetch a binary (browsers, Electron, Cypress) skip it: offline it would only fail. */
const SKIP_DOWNLOADS = [
  'PUPPETEER_SKIP_DOWNLOAD=1',
  'PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1',
  'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1',
  'CYPRESS_INSTALL_BINARY=0',
  'ELECTRON_SKIP_BINARY_DOWNLOAD=1',
];

/**
 * No release-age policy (pnpm 11 has one by default; its command-line spelling is not read): it asks
 * the registry for every locked entry's packument, other platforms' optional packages too, which are
 * never installed, and a registry that lacks one fails the build; it would also make whether a build
 * passes depend on the day it ran. The lockfile's integrity hashes fix what is installed; the
 * repository's own policy is dropped with its other settings (plan/yaml-config.ts).
 */
const PNPM_NO_AGE_CHECK = ['pnpm_config_minimum_release_age=0'];

/**
 * The managers' caches: npm's, yarn 1's (every package unpacked, other platforms' optional ones
 * too) and pnpm's store, which would be at the filesystem's root (/.pnpm-store), off the tree and
 * into the image. The download's are on the box's disk under /root/.cache, which its clean step
 * removes before the commit: a large tree's outgrew the 1 GiB /tmp tmpfs (ENOSPC). The offline
 * phase's stay in /tmp, emptied before its commit — but pnpm's store path: node_modules records the
 * store it was linked from, and `pnpm rebuild` refuses a tree linked from another path
 * (ERR_PNPM_UNEXPECTED_STORE), so the rebuild names the download's (empty by then; it reads none).
 */
const DOWNLOAD_CACHES = '/root/.cache/piper-download';
const PNPM_STORE = `npm_config_store_dir=${DOWNLOAD_CACHES}/pnpm-store`;
function cacheEnv(dir: string): string[] {
  return [`npm_config_cache=${dir}/npm`, `YARN_CACHE_FOLDER=${dir}/yarn`];
}

/** What every step of both phases sets: logs in /tmp (cleaned), no update check. */
const COMMON_ENV = [
  'HOME=/tmp',
  'npm_config_update_notifier=false',
  'npm_config_fund=false',
  'npm_config_audit=false',
  // pnpm copies from its store, and writes no side-effects cache back to it.
  'npm_config_package_import_method=copy',
  'npm_config_side_effects_cache=false',
  'YARN_ENABLE_TELEMETRY=0',
  'CI=1',
];

/**
 * The download. `locked` false: the lockfile is not followed exactly (none, or the git
 * dependencies were taken out of the manifests): npm install / pnpm and yarn without frozen.
 */
export function downloadCommand(manager: JsManager, locked: boolean): string {
  switch (manager) {
    case 'npm':
      return locked
        ? `${TOOL_BIN}/npm ci --ignore-scripts --no-audit --no-fund`
        : `${TOOL_BIN}/npm install --ignore-scripts --no-audit --no-fund`;
    case 'pnpm':
      return `${TOOL_BIN}/pnpm install ${locked ? '--frozen-lockfile' : '--no-frozen-lockfile'} --ignore-scripts --ignore-pnpmfile --config.confirmModulesPurge=false`;
    case 'yarn':
      return `${TOOL_BIN}/yarn install ${locked ? '--frozen-lockfile ' : ''}--ignore-scripts --non-interactive --no-progress`;
    case 'yarn-berry':
      return `${TOOL_BIN}/yarn install ${locked ? '--immutable ' : '--no-immutable '}--mode=skip-build`;
  }
}

/** The exec environment of the download (the registry and credentials are added by the caller). */
export function downloadEnv(manager: JsManager): string[] {
  return [
    ...COMMON_ENV,
    ...cacheEnv(DOWNLOAD_CACHES),
    PNPM_STORE,
    ...SKIP_DOWNLOADS,
    ...(manager === 'pnpm' ? PNPM_NO_AGE_CHECK : []),
    // berry: the repository's yarnPath and plugins are never run; its tree is node_modules.
    ...(manager === 'yarn-berry'
      ? [
          'YARN_IGNORE_PATH=1',
          'YARN_NODE_LINKER=node-modules',
          'YARN_ENABLE_GLOBAL_CACHE=0',
          'YARN_ENABLE_SCRIPTS=0',
        ]
      : []),
  ];
}

/**
 * The offline rebuild: lifecycle scripts and node-gyp against the provided Node's headers. yarn 1
 * has no rebuild, and berry's fetches its cache again (gone with the download's /tmp): npm's
 * walks the same node_modules tree.
 */
export function rebuildCommand(manager: JsManager): string {
  return manager === 'pnpm'
    ? `${TOOL_BIN}/pnpm rebuild`
    : `${TOOL_BIN}/npm rebuild --foreground-scripts --offline`;
}

export function rebuildEnv(_manager: JsManager): string[] {
  return [
    ...COMMON_ENV,
    ...cacheEnv('/tmp/piper'),
    PNPM_STORE,
    ...SKIP_DOWNLOADS,
    `npm_config_nodedir=${NODE_HOME}`,
    'npm_config_offline=true',
  ];
}

/** The step's script: in the tree, the command, its exit code said. */
export function inTree(command: string): string {
  return `set -e\ncd ${JS_TREE}\n${command}`;
}

/**
 * The environment image's ENV: piper's tools first on PATH, the tree's place for the sandbox's entry
 * point, and node-gyp in a run (the root package's own addon) finding the provided Node's headers
 * offline.
 */
export const IMAGE_ENV = `ENV PATH=${JS_PATH} PIPER_JS_TREE=${JS_TREE} npm_config_nodedir=${NODE_HOME}`;
