// The lockfile's tarball URLs and the manifests' direct tarball dependencies, read as data before
// the download: one with a login in it, or to this machine or its private network, fails the build
// before any box starts (plan/download-urls.ts), named with its login masked; your registry's own
// host may be local (a mirror on this machine). The hosts other than your registry's are said in
// the sources: the manager maps its own default registry to yours and fetches any other host as
// locked, each file checked against the lockfile's integrity hash where it records one.
import { redactUrl } from '../../plan/read/redact.js';
import { refusedUrl, urlsIn } from '../plan/download-urls.js';

export interface LockfileUrls {
  /** The first URL that may not reach the download, masked, why, and the manifest naming it (else the lockfile). */
  refused: { url: string; why: string; path: string | null } | null;
  /** Hosts (with port) other than the registry's, each once, in order of first appearance. */
  otherHosts: string[];
}

/**
 * The URLs a lockfile fetches from: on the lines that name a package's source (npm's and yarn's
 * `resolved`, pnpm's `tarball`, berry's `resolution` and `name@https://…` keys), not its funding or
 * homepage links.
 */
function fetchedUrls(lockText: string): string[] {
  return lockText
    .split('\n')
    .filter((line) => /resolved|tarball|resolution|@https?:\/\//i.test(line))
    .flatMap(urlsIn);
}

/** The http(s) URLs a manifest's dependencies name (a direct tarball dependency). */
export function manifestUrls(manifestText: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(manifestText);
  } catch {
    return [];
  }
  if (!doc || typeof doc !== 'object') return [];
  const out: string[] = [];
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    const deps = (doc as Record<string, unknown>)[field];
    if (!deps || typeof deps !== 'object') continue;
    for (const spec of Object.values(deps as Record<string, unknown>))
      if (typeof spec === 'string' && /^https?:\/\//i.test(spec.trim())) out.push(spec.trim());
  }
  return out;
}

/** The URL's host with its port; `bare`: null when it carries a login. */
function hostOf(url: string, bare = false): string | null {
  try {
    const parsed = new URL(url);
    return bare && (parsed.username || parsed.password) ? null : parsed.host;
  } catch {
    return null;
  }
}

export function lockfileUrls(
  lockText: string,
  registryUrl: string,
  direct: { path: string; url: string }[] = [],
): LockfileUrls {
  const registryHost = new URL(registryUrl).host;
  const otherHosts = new Set<string>();
  const all = [...direct, ...fetchedUrls(lockText).map((url) => ({ path: null, url }))];
  for (const { path, url } of all) {
    // git URLs are git-deps.ts's: such a dependency is never fetched.
    if (!/^https?:\/\//i.test(url)) continue;
    const host = hostOf(url);
    // Your own registry may be on this machine (a local mirror): only a login is refused there.
    const why = host === registryHost && hostOf(url, true) ? null : refusedUrl(url);
    if (why) return { refused: { url: redactUrl(url).slice(0, 200), why, path }, otherHosts: [] };
    if (host !== null && host !== registryHost) otherHosts.add(host);
  }
  return { refused: null, otherHosts: [...otherHosts] };
}
