// A direct reference from the repository (`pkg @ git+https://...`, `git+https://.../pkg.git#egg=pkg`,
// a URL to an archive) is code from wherever the URL points: pip fetches and builds it only when you
// trust the repository's configuration (--trust-repo-config). Otherwise it is never fetched, and
// the distribution it names is asked for by its name from the sources you trust — your pip index
// and find-links, then Debian — as a CI runner's would be had the project pinned it by version.
import type { PlannedRequirement } from '../../plan/types.js';
import { redactUrl } from '../../plan/read/redact.js';

export interface PipRequirements {
  /** What pip is given: each untrusted direct reference as its name (and extras). */
  requirements: PlannedRequirement[];
  /** Normalized names asked by name instead of by their URL. */
  byName: Set<string>;
  /** The source line saying so; null when there was none. */
  said: string | null;
}

/** The requirement without its URL: `name[extras]`. */
function byItsName(q: PlannedRequirement): PlannedRequirement {
  const extras = q.extras.length ? `[${q.extras.join(',')}]` : '';
  const { url: _url, ...rest } = q;
  return { ...rest, line: `${q.name}${extras}`, specifier: '' };
}

export function pipRequirements(wanted: PlannedRequirement[], trustUrls: boolean): PipRequirements {
  const refused = trustUrls ? [] : wanted.filter((q) => q.url !== undefined);
  const byName = new Set(refused.map((q) => q.normalized));
  return {
    requirements: wanted.map((q) => (byName.has(q.normalized) ? byItsName(q) : q)),
    byName,
    said: refused.length
      ? `direct references not fetched (a repository you have not trusted, --trust-repo-config): ${refused
          .map((q) => `${q.name} (${redactUrl(q.url!)})`)
          .join(', ')}; asked for by name from your pip sources, then Debian`
      : null,
  };
}
