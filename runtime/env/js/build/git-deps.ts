// Git dependencies (`git+https://…`, `github:owner/repo`, `owner/repo`): a package manager packs
// one by running its `prepare` script, with the network, even under --ignore-scripts. None is
// installed: a direct one is taken out of the manifests the download gets (a named shortfall, and
// the lockfile is then followed loosely); one the lockfile pulls in transitively cannot be taken
// out, and the build says so instead of running it.
import type { Shortfall } from '../../build/shortfall.js';

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
const GIT_SPEC = /^(git\+|git:\/\/|github:|gitlab:|bitbucket:|gist:)|^[A-Za-z0-9][\w.-]*\/[\w.-]+(#.*)?$/;
/** What a lockfile records for a git dependency (npm's `resolved`, pnpm's `resolution`, yarn's URL). */
const LOCKED_GIT =
  /(git\+(ssh|https?|file):\/\/|git:\/\/|codeload\.github\.com|\brepo: https?:\/\/|type: git\b)/;

export function isGitSpec(spec: string): boolean {
  return GIT_SPEC.test(spec.trim()) && !spec.startsWith('npm:') && !spec.startsWith('workspace:');
}

/** The manifest without its git dependencies, and one shortfall each. */
export function withoutGitDeps(path: string, text: string): { text: string; shortfalls: Shortfall[] } {
  const doc = JSON.parse(text) as Record<string, unknown>;
  const shortfalls: Shortfall[] = [];
  for (const field of DEP_FIELDS) {
    const deps = doc[field];
    if (!deps || typeof deps !== 'object') continue;
    for (const [name, spec] of Object.entries(deps as Record<string, unknown>)) {
      if (typeof spec !== 'string' || !isGitSpec(spec)) continue;
      delete (deps as Record<string, unknown>)[name];
      shortfalls.push({
        kind: 'missing',
        name,
        wanted: spec,
        got: null,
        source: null,
        from: `${path} ${field}`,
        optional: field === 'optionalDependencies',
        why: 'a git dependency: its package is made by its prepare script, which would run with the network; not installed',
      });
    }
  }
  return shortfalls.length ? { text: `${JSON.stringify(doc, null, 2)}\n`, shortfalls } : { text, shortfalls };
}

/** Whether the lockfile pins a git dependency (one no manifest of the project names directly). */
export function lockPinsGit(lockText: string): boolean {
  return LOCKED_GIT.test(lockText);
}
