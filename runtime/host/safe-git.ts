// Every git command piper-agent runs goes through here (the repository is untrusted input:
// docs/sandbox.md, "The host side of the boundary"). A repository can carry its own .git (a
// tarball, a shared folder, a CI cache), and git obeys that .git/config: `core.fsmonitor`, hooks,
// pagers, external diff tools and credential helpers are commands, and `core.worktree` moves the
// work tree elsewhere. So git runs with no system or global configuration, a minimal environment,
// `-c` overrides for every key that runs a command or redirects the work tree, and the git dir and
// work tree given explicitly, as piper resolved them. Reading calls also take no optional locks,
// so they never write the index.
import { execFile, execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A repository piper may ask git about: `root/.git` is a real directory (not a file, not a link). */
export interface GitRepo {
  root: string;
  gitDir: string;
}

/**
 * Keys a repository's config could use to run a command or move the work tree, neutralized. The
 * command line outranks the repository's config, so these win over `.git/config`.
 */
const OVERRIDES: Record<string, string> = {
  'core.fsmonitor': 'false',
  'core.useBuiltinFSMonitor': 'false',
  'core.hooksPath': '/dev/null',
  'core.pager': 'cat',
  'core.editor': 'false',
  'core.askPass': '',
  'core.sshCommand': 'false',
  'core.gitProxy': '',
  'core.untrackedCache': 'false',
  'core.excludesFile': '/dev/null',
  'core.attributesFile': '/dev/null',
  'diff.external': '',
  'credential.helper': '',
  'protocol.allow': 'never',
  'uploadpack.packObjectsHook': '',
  'gpg.program': 'false',
  'commit.gpgSign': 'false',
  'tag.gpgSign': 'false',
  'submodule.recurse': 'false',
  'maintenance.auto': 'false',
  'gc.auto': '0',
};

/** A git that hangs (a FIFO named by the repository's config or .gitignore) is killed after this. */
const TIMEOUT_MS = 60_000;

/**
 * The environment git runs in: nothing of the caller's (no GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_*,
 * GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, ...), no system or global config, no prompts.
 */
export function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PROTOCOL_FROM_USER: '0',
  };
}

/** The `-c` arguments that neutralize the repository's command-running keys. */
export function gitOverrides(): string[] {
  return Object.entries(OVERRIDES).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
}

/**
 * The repository at `root`, or null. A `.git` *file* (`gitdir: …`, as in worktrees and submodules)
 * is not a repository here: it may point anywhere on the host, to a git dir piper never checked;
 * callers list files by walking the tree instead.
 */
export function gitRepoAt(given: string): GitRepo | null {
  // Absolute: git runs with --git-dir and --work-tree from another directory (a relative --repo
  // read nothing: no tag, no commit).
  const root = resolve(given);
  const gitDir = join(root, '.git');
  try {
    return lstatSync(gitDir).isDirectory() ? { root, gitDir } : null;
  } catch {
    return null;
  }
}

export interface GitRunOptions {
  maxBuffer?: number;
  /** Bytes for git's stdin. */
  input?: string | Buffer;
}

/**
 * git's stdout for a reading command on `repo`, or null when git fails (not a repository, no git,
 * a non-zero exit, killed after the time limit). The git dir and work tree are passed explicitly:
 * git does no discovery and a repository's `core.worktree` cannot redirect the call.
 */
export function gitRead(repo: GitRepo, args: string[], options: GitRunOptions = {}): Buffer | null {
  return run(readArgv(repo, args), repo.root, options);
}

/** gitRead without blocking: the same call in a child process the caller awaits. */
export function gitReadAsync(repo: GitRepo, args: string[]): Promise<Buffer | null> {
  return new Promise((resolve) => {
    execFile(
      'git',
      readArgv(repo, args),
      { cwd: repo.root, env: gitEnv(), encoding: 'buffer', maxBuffer: 256 << 20, timeout: TIMEOUT_MS },
      (error, stdout) => resolve(error ? null : stdout),
    ).stdin?.end();
  });
}

function readArgv(repo: GitRepo, args: string[]): string[] {
  return [
    '--no-optional-locks',
    `--git-dir=${repo.gitDir}`,
    `--work-tree=${repo.root}`,
    // Explicit --git-dir skips git's ownership check today; these keep a checkout owned by another
    // user (a CI runner's, mounted into a container) readable should that change. Only this exact
    // repository is named, never '*'.
    '-c',
    `safe.directory=${repo.root}`,
    ...gitOverrides(),
    ...args,
  ];
}

/** gitRead as text (UTF-8), or null. */
export function gitReadText(repo: GitRepo, args: string[], options: GitRunOptions = {}): string | null {
  return gitRead(repo, args, options)?.toString('utf8') ?? null;
}

/**
 * A writing command in a repository piper itself created (`git init` in a fresh directory and its
 * first commit): the same clean environment and overrides, with a fixed identity.
 */
export function gitInOwnRepo(dir: string, args: string[], identity: { name: string; email: string }): void {
  const ran = run(
    [
      '-c',
      `user.name=${identity.name}`,
      '-c',
      `user.email=${identity.email}`,
      ...gitOverrides(),
      ...(args[0] === 'init' ? ['-C', dir] : [`--git-dir=${join(dir, '.git')}`, `--work-tree=${dir}`]),
      ...args,
    ],
    dir,
    {},
  );
  if (ran === null) throw new Error(`git ${args[0] ?? ''} in ${dir} failed`);
}

function run(argv: string[], cwd: string, options: GitRunOptions): Buffer | null {
  try {
    return execFileSync('git', argv, {
      cwd,
      env: gitEnv(),
      input: options.input,
      maxBuffer: options.maxBuffer ?? 256 << 20,
      timeout: TIMEOUT_MS,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}
