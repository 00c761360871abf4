// The root package's own install lifecycle, when it builds the project's native addon: `npm ci` on a
// runner runs the checkout's preinstall, install and postinstall scripts, and the addon they compile
// from the checkout's source is what the tests load (bcrypt, argon2). The environment's offline
// phase has no checkout to build from, so the run does it first, in the sandbox, offline, with
// piper's npm (`npm run install` runs the pre and post hooks too, and gives node-gyp npm's own copy).
// Install scripts that build nothing native (husky, patch-package, a check) are not run.

/** Words of an install script that compile or fetch a native addon. */
const NATIVE = /\b(?:node-gyp|node-gyp-build|node-pre-gyp|prebuild-install|cmake-js|napi-build)\b/;

/** The line to run before the tests, or null. */
export function rootInstallLine(scripts: Record<string, string>, decisions: string[]): string | null {
  const hooks = ['preinstall', 'install', 'postinstall'].filter((name) => scripts[name] !== undefined);
  if (!hooks.some((name) => NATIVE.test(scripts[name]!))) return null;
  decisions.push(
    `the root package's ${hooks.join(', ')} script${hooks.length > 1 ? 's build' : ' builds'} its native addon: run before the tests (\`npm ci\` runs ${hooks.length > 1 ? 'them' : 'it'} on a runner)`,
  );
  return scripts.install !== undefined
    ? 'npm run install'
    : hooks.map((name) => `npm run ${name}`).join(' && ');
}
