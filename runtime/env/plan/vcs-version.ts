// The version of a project that takes it from git, read on the host (the sandbox's workspace has no
// .git) with safe git only (runtime/host/safe-git.ts: no hooks, no repository config that runs a
// command), and given to the editable install as the variables its tool reads. It is part of the
// build spec's checkout part (spec/build-spec.ts): a new tag or commit builds the project phase
// again on the kept dependency image, as a changed snapshot does.
//
// As setuptools-scm's default scheme (guess-next-dev) would: a tag at HEAD is the version (`v`
// stripped); N commits after it bump the tag's last number and add `.devN+g<hash>` (v1.4.0, 3
// commits on → 1.4.1.dev3+gabc1234). No version-like tag: 0.0.0+g<hash>. No repository or no
// commit: 0.0.0. Uncommitted changes add nothing (setuptools-scm would add a date).
import { realpathSync } from 'node:fs';
import { readRepoFile } from '../../host/inside-repo.js';
import { gitReadText, gitRepoAt } from '../../host/safe-git.js';
import { RepoReader } from './read/repo-reader.js';
import { detectVcsUse, type VcsUse } from './deps/vcs-use.js';

/** What the project step of a build gets for a project whose version comes from its VCS. */
export interface ProjectVersion {
  /** Variables for the install (the VCS version), exported in the script so the record shows them. */
  env?: Record<string, string>;
  /** A line for the record: where the version came from. */
  note?: string;
  /**
   * The version for a PKG-INFO at the project's root, for a tool that reads no variable but reads
   * that file first, as it does in an sdist (setuptools-git-versioning).
   */
  pkgInfo?: string;
}

export interface VcsVersion {
  version: string;
  /** How it was found, for the build's record. */
  from: string;
}

/** A PEP 440 public version (what a release tag holds once its `v` is stripped). */
const PEP440 = /^\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?$/;

export function readVcsVersion(repoRoot: string): VcsVersion {
  const repo = gitRepoAt(repoRoot);
  if (!repo) return { version: '0.0.0', from: 'no git repository' };
  const described = gitReadText(repo, [
    'describe',
    '--tags',
    '--long',
    '--abbrev=7',
    '--match',
    'v[0-9]*',
    '--match',
    '[0-9]*',
  ])?.trim();
  const parts = described ? /^(.*)-(\d+)-g([0-9a-f]+)$/.exec(described) : null;
  const tag = parts?.[1]?.replace(/^[vV]/, '');
  if (parts && tag && PEP440.test(tag)) {
    const distance = Number(parts[2]);
    const version = distance === 0 ? tag : `${bumpLast(tag)}.dev${distance}+g${parts[3]}`;
    return { version, from: `git describe --tags: ${described}` };
  }
  const head = gitReadText(repo, ['rev-parse', '--short=7', '--verify', '-q', 'HEAD^{commit}'])?.trim();
  if (head && /^[0-9a-f]{7,}$/.test(head))
    return { version: `0.0.0+g${head}`, from: `no version tag; HEAD ${head}` };
  return { version: '0.0.0', from: 'no commit' };
}

/**
 * What setuptools-git-versioning's templates may hold that is read here: a version's characters and
 * these placeholders (the repository writes them; the version reaches a file and the record). Anything
 * else: the tool's default template.
 */
const TEMPLATE_FIELDS = /^(?:[A-Za-z0-9.+!_-]|\{(?:tag|ccount|sha|full_sha)\})*$/;

/**
 * As setuptools-git-versioning would: a tag at HEAD through its `template` (default `{tag}`), N
 * commits after it through its `dev_template` (default `{tag}.post{ccount}+git.{sha}`, sha the
 * first 8 hex digits); no tag, its starting version 0.0.1.
 */
export function readGitVersioningVersion(
  repoRoot: string,
  templates: { tag?: string; dev?: string } = {},
): VcsVersion {
  const repo = gitRepoAt(repoRoot);
  if (!repo) return { version: '0.0.1', from: 'no git repository' };
  const described = gitReadText(repo, ['describe', '--tags', '--long', '--abbrev=40'])?.trim();
  const parts = described ? /^(.*)-(\d+)-g([0-9a-f]{40})$/.exec(described) : null;
  const tag = parts?.[1]?.replace(/^[vV]/, '');
  if (!parts || !tag || !PEP440.test(tag)) return { version: '0.0.1', from: 'no version tag' };
  const distance = Number(parts[2]);
  const usable = (t: string | undefined) => (t !== undefined && TEMPLATE_FIELDS.test(t) ? t : undefined);
  const template =
    distance === 0
      ? (usable(templates.tag) ?? '{tag}')
      : (usable(templates.dev) ?? '{tag}.post{ccount}+git.{sha}');
  const fields: Record<string, string> = {
    tag,
    ccount: String(distance),
    sha: parts[3]!.slice(0, 8),
    full_sha: parts[3]!,
  };
  const version = template.replace(/\{(\w+)\}/g, (_, k: string) => fields[k] ?? '');
  return { version, from: `git describe --tags: ${parts[1]}, ${distance} commits on` };
}

/** The next version after a tag, as setuptools-scm guesses it: its last number plus one. */
function bumpLast(tag: string): string {
  return tag.replace(/(\d+)$/, (n) => String(Number(n) + 1));
}

/**
 * A `.git_archival.txt` that `git archive` filled in (no `$Format:` left): setuptools-scm reads the
 * version from it, so nothing is pretended for a tarball without .git.
 */
function hasFilledArchival(repoRoot: string): boolean {
  // Read only as a regular file inside the repository (never a FIFO or a link out of it).
  const bytes = readRepoFile(realpathSync(repoRoot), '.git_archival.txt');
  if (!Buffer.isBuffer(bytes)) return false;
  const text = bytes.toString('utf8');
  return /^node:\s*[0-9a-f]{7,}/m.test(text) && !text.includes('$Format:');
}

/**
 * The variables the editable install gets: setuptools-scm's (hatch-vcs and flit_scm use it), the
 * one named for this distribution (setuptools-scm's normalization: runs of `-_.` become `_`,
 * upper case) and pdm-backend's.
 */
export function pretendVersionEnv(name: string | null, version: string): Record<string, string> {
  const env: Record<string, string> = { SETUPTOOLS_SCM_PRETEND_VERSION: version };
  if (name) env[`SETUPTOOLS_SCM_PRETEND_VERSION_FOR_${name.replace(/[-_.]+/g, '_').toUpperCase()}`] = version;
  env.PDM_BUILD_SCM_VERSION = version;
  return env;
}

/** What the project step of a build gets for a project that uses a VCS version (null: nothing). */
function projectVersionEnv(repoRoot: string, name: string | null, use: VcsUse | null): ProjectVersion | null {
  if (!use) return null;
  if (!gitRepoAt(repoRoot) && hasFilledArchival(repoRoot)) return null;
  if (use.tool === 'setuptools-git-versioning') {
    const found = readGitVersioningVersion(repoRoot, use.templates);
    return {
      pkgInfo: found.version,
      note: `version ${found.version} for ${use.tool} (${use.why}): ${found.from}`,
    };
  }
  const found = readVcsVersion(repoRoot);
  return {
    env: pretendVersionEnv(name, found.version),
    note: `version ${found.version} for ${use.tool} (${use.why}): ${found.from}`,
  };
}

/** The project step's install settings for this repository, read when the build spec is made. */
export function projectInstallFor(repoRoot: string, name: string | null): ProjectVersion {
  return projectVersionEnv(repoRoot, name, detectVcsUse(new RepoReader(repoRoot))) ?? {};
}
