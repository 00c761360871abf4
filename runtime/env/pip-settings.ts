// Where pip may look, decided once per build: the user's own environment (PIP_INDEX_URL,
// PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS) and, only when the user trusts the repository, the index
// URLs its recipe or requirements files name (a repository must not point a networked build step
// at a server of its choosing). Wheel directories inside the repository are always usable: a wheel
// runs no code when installed. With no index and no wheelhouse, pip is not tried at all.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { insideRepo } from '../host/inside-repo.js';
import type { EnvPlan } from './plan/types.js';

export interface PipSettings {
  indexUrl: string | null;
  extraIndexUrls: string[];
  /** PIP_FIND_LINKS entries that are directories on this machine (copied into the build). */
  findLinkDirs: string[];
  /** PIP_FIND_LINKS entries that are URLs (passed to pip as they are). */
  findLinkUrls: string[];
  /** Things the user should know (an untrusted repository's index URL was ignored, …). */
  notes: string[];
  redact: (url: string) => string;
}

export function pipSettings(
  plan: EnvPlan,
  env: NodeJS.ProcessEnv,
  opts: { trustRepoIndex: boolean; repoRoot: string },
): PipSettings {
  const notes: string[] = [];
  const split = (v: string | undefined) => (v ?? '').split(/\s+/).filter(Boolean);
  let indexUrl = env.PIP_INDEX_URL?.trim() || null;
  const extraIndexUrls = split(env.PIP_EXTRA_INDEX_URL);
  const repoIndexes = [plan.pip.indexUrl, ...plan.pip.extraIndexUrls].filter((u): u is string => !!u);
  if (repoIndexes.length) {
    if (opts.trustRepoIndex) {
      if (plan.pip.indexUrl) indexUrl = plan.pip.indexUrl;
      extraIndexUrls.push(...plan.pip.extraIndexUrls);
    } else {
      notes.push(
        `ignored the index URL(s) the repository names (${repoIndexes.map(redactUrl).join(', ')}): the repository is not trusted (--trust-repo-config)`,
      );
    }
  }
  const findLinkDirs: string[] = [];
  const findLinkUrls: string[] = [];
  for (const entry of plan.pip.findLinks) {
    if (!isUrl(entry)) {
      // A wheel runs no code when installed; but the directory must really be the repository's
      // (a requirements file's `--find-links ../..` or a link out of it is not).
      const dir = insideRepo(realpathSync(opts.repoRoot), entry);
      if (dir && statSync(dir).isDirectory()) findLinkDirs.push(dir);
      else notes.push(`find_links ${entry} is not a directory inside the repository; ignored`);
    } else if (opts.trustRepoIndex) findLinkUrls.push(entry);
    else
      notes.push(
        `ignored the find_links URL ${redactUrl(entry)}: the repository is not trusted (--trust-repo-config)`,
      );
  }
  for (const entry of split(env.PIP_FIND_LINKS)) {
    if (isUrl(entry)) findLinkUrls.push(entry);
    else {
      const path = entry.replace(/^file:\/\//, '');
      if (isAbsolute(path) && existsSync(path) && statSync(path).isDirectory()) findLinkDirs.push(path);
      else notes.push(`PIP_FIND_LINKS entry ${path} is not a directory here; ignored`);
    }
  }
  return { indexUrl, extraIndexUrls, findLinkDirs, findLinkUrls, notes, redact: redactUrl };
}

function isUrl(entry: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) && !entry.startsWith('file://');
}

/** A URL with its user and password replaced, for every record and message. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = u.username ? '***' : '';
    u.password = u.password ? '***' : '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//***@');
  }
}

/** What of the pip settings changes the result (and so the key); credentials only as part of a hash. */
export function pipKeyPart(p: PipSettings): unknown {
  return {
    indexUrl: p.indexUrl,
    extraIndexUrls: p.extraIndexUrls,
    findLinkUrls: p.findLinkUrls,
    findLinkDirs: p.findLinkDirs,
  };
}
