// The indexes one tool's settings name, as pip can be given them: one index that replaces pip's
// default (uv's `default = true`, Poetry's first primary source, PDM's source named pypi), extra
// indexes pip asks beside it, and flat pages of links (pip's find-links). uv, Poetry and PDM can keep
// an index to the packages that name it; pip cannot, so such an index is left out and said. Each
// reader (uv-settings.ts, poetry-sources.ts, pdm-sources.ts) fills one of these; the user's are
// joined to pip's (user-indexes.ts), the repository's to its pip options (repo-indexes.ts).
import { redactUrl } from '../read/redact.js';

export interface IndexSources {
  /** The index that replaces pip's default; null: the default stays. */
  indexUrl: string | null;
  /** Where indexUrl was read. */
  indexFrom: string | null;
  extraIndexUrls: string[];
  /** Flat indexes (a page of links): find-links URLs. */
  findLinks: string[];
  /** Where each was read: `uv.toml [[index]] corp`, `UV_DEFAULT_INDEX`. */
  from: string[];
  /** What was read and not used, and why. */
  notes: string[];
}

export function noSources(): IndexSources {
  return { indexUrl: null, indexFrom: null, extraIndexUrls: [], findLinks: [], from: [], notes: [] };
}

/** An http(s) URL: the only kind a build box can ask (a path or file:// is of this machine). */
function isWebUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/\S+$/i.test(value.trim());
}

/**
 * One index added as `kind`; the first default wins (a later one is said), a URL is listed once.
 * Anything but an http(s) URL is said and left out.
 */
export function addIndex(
  into: IndexSources,
  kind: 'default' | 'extra' | 'flat',
  url: unknown,
  from: string,
): void {
  if (!isWebUrl(url)) {
    into.notes.push(`${from}: ${describe(url)} is not an http(s) URL a build can ask; not used`);
    return;
  }
  const clean = url.trim();
  if (kind === 'default' && into.indexUrl !== null && into.indexUrl !== clean) {
    into.notes.push(
      `${from}: ${redactUrl(clean)} not used as the index: ${redactUrl(into.indexUrl)} came first`,
    );
    return;
  }
  const list = kind === 'flat' ? into.findLinks : into.extraIndexUrls;
  if (kind === 'default') {
    into.indexUrl = clean;
    into.indexFrom = from;
  } else if (!list.includes(clean) && clean !== into.indexUrl) list.push(clean);
  if (!into.from.includes(from)) into.from.push(from);
}

/** Another tool's sources after these: its default only where none is set yet, its lists appended. */
export function joinSources(into: IndexSources, more: IndexSources): void {
  const from = more.from.join(', ');
  if (more.indexUrl !== null) addIndex(into, 'default', more.indexUrl, more.indexFrom ?? from);
  for (const url of more.extraIndexUrls) addIndex(into, 'extra', url, from);
  for (const url of more.findLinks) addIndex(into, 'flat', url, from);
  // Each place the joined settings were read, once (not the joined list addIndex noted).
  into.from = into.from.filter((f) => f !== from);
  for (const f of more.from) if (!into.from.includes(f)) into.from.push(f);
  into.notes.push(...more.notes);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? redactUrl(value).slice(0, 200) : `a ${typeof value}`;
}
