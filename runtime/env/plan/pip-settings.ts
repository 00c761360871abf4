// Where pip may look, decided once per build, and in which phase (docs/environments.md, "Security
// model"):
//   - the user's own sources — pip's configuration on this machine and the PIP_* variables
//     (pip-config.ts), the user's uv settings beside them (indexes/user-indexes.ts), host
//     directories of PIP_FIND_LINKS — and, only when the user trusts the repository, the index and
//     find-links URLs its recipe, requirements files, uv, Poetry or PDM settings name: these are
//     used by the networked dependency phase, the only step that gets the credentials;
//   - with none of those, pip's own default index, as a plain `pip install` would (no credentials);
//   - the repository's wheel directories: installed only in a phase with no network and no secret,
//     because a wheel is code the moment any Python starts after it.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { insideRepo } from '../../host/inside-repo.js';
import type { UserPipConfig } from './pip-config.js';
import { readUserIndexes } from './indexes/user-indexes.js';
import {
  networkSecrets,
  readPipNetwork,
  userNetworkSecrets,
  type PipNetwork,
} from './network/pip-network.js';
import { redactUrl } from './read/redact.js';
import type { EnvPlan } from './types.js';
import { guardSecrets } from '../../text/output-guard.js';
import { Redactor, secretsOf } from './secrets.js';

export interface PipSettings {
  indexUrl: string | null;
  extraIndexUrls: string[];
  /** find-links URLs (the user's, or a trusted repository's): exec environment only, never an argument. */
  findLinkUrls: string[];
  /** The user's find-links directories on this machine: copied into the networked phase. */
  userWheelDirs: string[];
  /** The repository's wheel directories (host paths): installed with no network, no secret. */
  repoWheelDirs: string[];
  trustedHosts: string[];
  /** Nothing configured: pip's own default index, without credentials. */
  defaultIndex: boolean;
  /**
   * Seconds pip waits for one reply, and how often it tries again: the user's (PIP_TIMEOUT,
   * PIP_RETRIES, pip.conf's timeout/retries), else pip's own defaults. Not in the keys: they decide
   * whether the index answered, which the key holds as the sources used (spec-schema.ts).
   */
  timeoutS: number;
  retries: number;
  /** Where each setting came from (pip.conf sections, PIP_* names, repository files). */
  from: string[];
  /** Things the user should know (an untrusted repository's index URL was ignored, …). */
  notes: string[];
  redactor: Redactor;
  /**
   * How the networked steps reach the index: the user's CA bundle, client certificate, proxies,
   * netrc, no-index and constraints (pip-network.ts). Files and variables for those steps only.
   */
  network: PipNetwork;
}

export function pipSettings(
  plan: EnvPlan,
  env: NodeJS.ProcessEnv,
  opts: { trustRepoIndex: boolean; repoRoot: string },
): PipSettings {
  const { user, notes } = readUserIndexes(env);
  const { indexUrl, extraIndexUrls, from, repoIndexes } = indexUrls(plan, user, opts, notes);
  const findLinkUrls: string[] = [];
  // The repository's find-links first, then the user's (the order pip is given them in).
  const repoWheelDirs = repoFindLinks(plan.pip.findLinks, opts, findLinkUrls, notes);
  const userWheelDirs = userFindLinks(user.findLinks, findLinkUrls, notes);
  // A CA bundle or client certificate only where pip may speak TLS: pip's default index, or an
  // https:// index or find-links URL (an http:// one, a local test index, needs no file in the box).
  const tls =
    indexUrl === null || [indexUrl, ...extraIndexUrls, ...findLinkUrls].some((u) => u.startsWith('https:'));
  const network = readPipNetwork(user, env, { tls });
  notes.push(...network.notes);
  // No index of the user's: pip uses its own default index (find-links only add to it), unless
  // the user's no-index says no index at all.
  const defaultIndex = indexUrl === null && !network.noIndex;
  const credentialed = [
    ...network.urls,
    indexUrl ?? '',
    ...extraIndexUrls,
    ...findLinkUrls,
    ...repoIndexes,
    ...plan.pip.findLinks,
  ];
  // The same secrets as the ledger's redactor, masked on the terminal too (a trusted recipe's URLs).
  guardSecrets([...credentialed.flatMap(secretsOf), ...networkSecrets(network)]);
  return {
    indexUrl,
    extraIndexUrls,
    findLinkUrls,
    userWheelDirs,
    repoWheelDirs,
    trustedHosts: user.trustedHosts,
    defaultIndex,
    timeoutS: numberSetting(user.timeout, PIP_TIMEOUT_S, 1, 600),
    retries: numberSetting(user.retries, PIP_RETRIES, 0, 20),
    from,
    notes,
    redactor: new Redactor(credentialed, network.secrets),
    network,
  };
}

/** The index URLs pip is given: the user's (a local directory left out), the repository's only when trusted. */
function indexUrls(
  plan: EnvPlan,
  user: UserPipConfig,
  opts: { trustRepoIndex: boolean },
  notes: string[],
): { indexUrl: string | null; extraIndexUrls: string[]; from: string[]; repoIndexes: string[] } {
  // A file:// index is a directory of this machine: a build container cannot read it.
  const local = (url: string) => url.startsWith('file:');
  for (const url of [user.indexUrl ?? '', ...user.extraIndexUrls].filter(local))
    notes.push(
      `your pip configuration's index ${url} is a local directory the build container cannot read; not used`,
    );
  let indexUrl = user.indexUrl && !local(user.indexUrl) ? user.indexUrl : null;
  const extraIndexUrls = user.extraIndexUrls.filter((u) => !local(u));
  const from = [...user.from];
  const repoIndexes = [plan.pip.indexUrl, ...plan.pip.extraIndexUrls].filter((u): u is string => !!u);
  if (repoIndexes.length && opts.trustRepoIndex) {
    if (plan.pip.indexUrl) indexUrl = plan.pip.indexUrl;
    extraIndexUrls.push(...plan.pip.extraIndexUrls);
    from.push(...plan.pip.fromFiles);
  } else if (repoIndexes.length) {
    notes.push(
      `ignored the index URL(s) the repository names (${repoIndexes.map(redactUrl).join(', ')}): the repository is not trusted (--trust-repo-config)`,
    );
  }
  return { indexUrl, extraIndexUrls, from, repoIndexes };
}

/** pip's own defaults (its `--timeout` and `--retries`): what a plain `pip install` in CI waits. */
const PIP_TIMEOUT_S = 15;
const PIP_RETRIES = 5;

/** A whole number the user set within [min, max]; else the default (pip would refuse a bad one). */
function numberSetting(text: string | null, fallback: number, min: number, max: number): number {
  const n = text === null ? NaN : Number(text);
  return Number.isFinite(n) && n >= min ? Math.min(Math.round(n), max) : fallback;
}

/**
 * The user's pip sources' credentials (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS, pip.conf,
 * uv's index settings), the proxies' and the netrc's, masked on stdout and stderr from the start of
 * a command, before anything could print them.
 */
export function guardUserPipSecrets(env: NodeJS.ProcessEnv): void {
  const { user } = readUserIndexes(env);
  guardSecrets([user.indexUrl ?? '', ...user.extraIndexUrls, ...user.findLinks].flatMap(secretsOf));
  guardSecrets(userNetworkSecrets(user, env));
}

/** The repository's find-links: its own directories, and (trusted only) its URLs, added to findLinkUrls. */
function repoFindLinks(
  findLinks: string[],
  opts: { trustRepoIndex: boolean; repoRoot: string },
  findLinkUrls: string[],
  notes: string[],
): string[] {
  const repoWheelDirs: string[] = [];
  for (const entry of findLinks) {
    if (!isUrl(entry)) {
      // The directory must really be the repository's (a `--find-links ../..` or a link out is not).
      const dir = insideRepo(realpathSync(opts.repoRoot), entry);
      if (dir && statSync(dir).isDirectory()) repoWheelDirs.push(dir);
      else notes.push(`find_links ${entry} is not a directory inside the repository; ignored`);
    } else if (opts.trustRepoIndex) findLinkUrls.push(entry);
    else
      notes.push(
        `ignored the find_links URL ${redactUrl(entry)}: the repository is not trusted (--trust-repo-config)`,
      );
  }
  return repoWheelDirs;
}

/** The user's find-links: directories of this machine, and URLs added to findLinkUrls. */
function userFindLinks(findLinks: string[], findLinkUrls: string[], notes: string[]): string[] {
  const userWheelDirs: string[] = [];
  for (const entry of findLinks) {
    if (isUrl(entry)) findLinkUrls.push(entry);
    else {
      const path = entry.replace(/^file:\/\//, '');
      if (isAbsolute(path) && existsSync(path) && statSync(path).isDirectory()) userWheelDirs.push(path);
      else notes.push(`find-links entry ${path} (your pip configuration) is not a directory here; ignored`);
    }
  }
  return userWheelDirs;
}

function isUrl(entry: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) && !entry.startsWith('file://');
}

/**
 * The networked pip step's source settings, for its exec environment only (never its arguments,
 * never the container's configuration): an index, extra indexes, find-links URLs, trusted hosts,
 * and how long pip waits for them (pip reads PIP_TIMEOUT and PIP_RETRIES itself).
 * PIP_CONFIG_FILE=/dev/null: nothing in the image's own pip configuration adds a source.
 */
export function pipSourceEnv(p: PipSettings, wheelDirsInside: string[]): string[] {
  const env = ['PIP_CONFIG_FILE=/dev/null', `PIP_TIMEOUT=${p.timeoutS}`, `PIP_RETRIES=${p.retries}`];
  if (p.indexUrl) env.push(`PIP_INDEX_URL=${p.indexUrl}`);
  if (p.extraIndexUrls.length) env.push(`PIP_EXTRA_INDEX_URL=${p.extraIndexUrls.join(' ')}`);
  const links = [...wheelDirsInside, ...p.findLinkUrls];
  if (links.length) env.push(`PIP_FIND_LINKS=${links.join(' ')}`);
  if (p.trustedHosts.length) env.push(`PIP_TRUSTED_HOST=${p.trustedHosts.join(' ')}`);
  // The CA bundle, client certificate, netrc and constraints as paths in the box (index-files.ts
  // puts them there), the proxies, no-index.
  env.push(...p.network.env);
  return env;
}
